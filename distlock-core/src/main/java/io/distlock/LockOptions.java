package io.distlock;

import java.time.Duration;
import java.util.Objects;

/**
 * Immutable per-lock options: how long one lease lasts and whether the watchdog renews it.
 *
 * <p>{@link #defaults()} gives a 30 s lease renewed every 10 s (leaseTime / 3) for as long as the
 * lock is held. With {@code autoRenew(false)} the lease simply ends after {@code leaseTime}; the
 * holder is then told through {@link Lease#onLost} and {@link Lease#isValid()}.
 *
 * <p>Backends whose lease is a session (ZooKeeper) document how they map these options.
 */
public final class LockOptions {
    /** The default lease time, 30 seconds. */
    public static final Duration DEFAULT_LEASE_TIME = Duration.ofSeconds(30);
    /** The shortest lease accepted, 10 milliseconds: shorter ones cannot be renewed in time. */
    public static final Duration MIN_LEASE_TIME = Duration.ofMillis(10);
    /** The longest lease accepted, 24 days (what a millisecond TTL in a 32-bit integer allows). */
    public static final Duration MAX_LEASE_TIME = Duration.ofMillis(Integer.MAX_VALUE);

    private static final LockOptions DEFAULTS = new LockOptions(DEFAULT_LEASE_TIME, true);

    private final Duration leaseTime;
    private final boolean autoRenew;

    private LockOptions(Duration leaseTime, boolean autoRenew) {
        this.leaseTime = leaseTime;
        this.autoRenew = autoRenew;
    }

    /** Returns the default options: 30 s lease, renewed automatically. */
    public static LockOptions defaults() {
        return DEFAULTS;
    }

    /** Returns a builder starting from the defaults. */
    public static Builder builder() {
        return new Builder(DEFAULTS);
    }

    /** Returns a builder starting from these options. */
    public Builder toBuilder() {
        return new Builder(this);
    }

    /** Returns how long one lease lasts before it must be renewed. */
    public Duration leaseTime() {
        return leaseTime;
    }

    /** Returns whether the watchdog renews the lease every {@code leaseTime / 3} while it is held. */
    public boolean autoRenew() {
        return autoRenew;
    }

    /** Returns the interval at which the watchdog renews: a third of the lease time. */
    public Duration renewInterval() {
        return Duration.ofNanos(leaseTime.toNanos() / 3); // not dividedBy(long): that divides BigDecimals on every acquire
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof LockOptions other && leaseTime.equals(other.leaseTime) && autoRenew == other.autoRenew;
    }

    @Override
    public int hashCode() {
        return Objects.hash(leaseTime, autoRenew);
    }

    @Override
    public String toString() {
        return "LockOptions[leaseTime=" + leaseTime + ", autoRenew=" + autoRenew + "]";
    }

    /** Builds {@link LockOptions}; validates each value when it is set. */
    public static final class Builder {
        private Duration leaseTime;
        private boolean autoRenew;

        private Builder(LockOptions from) {
            this.leaseTime = from.leaseTime;
            this.autoRenew = from.autoRenew;
        }

        /**
         * Sets how long one lease lasts.
         *
         * @throws IllegalArgumentException if null, shorter than {@link #MIN_LEASE_TIME} or longer than
         *     {@link #MAX_LEASE_TIME}
         */
        public Builder leaseTime(Duration leaseTime) {
            this.leaseTime = checkLeaseTime(leaseTime);
            return this;
        }

        /** Sets whether the watchdog renews the lease while it is held (default true). */
        public Builder autoRenew(boolean autoRenew) {
            this.autoRenew = autoRenew;
            return this;
        }

        /** Returns the immutable options. */
        public LockOptions build() {
            return new LockOptions(leaseTime, autoRenew);
        }
    }

    /** Checks the time a lease is to stay held without renewals ({@link Lease#expireAfter}). */
    static void checkHoldFor(Duration holdFor) {
        if (holdFor == null || holdFor.isNegative() || holdFor.isZero()) {
            throw new IllegalArgumentException("holdFor must be positive, was " + holdFor);
        }
    }

    static Duration checkLeaseTime(Duration leaseTime) {
        if (leaseTime == null) {
            throw new IllegalArgumentException("leaseTime must not be null");
        }
        if (leaseTime.isNegative() || leaseTime.isZero()) {
            throw new IllegalArgumentException("leaseTime must be positive, was " + leaseTime);
        }
        if (leaseTime.compareTo(MIN_LEASE_TIME) < 0) {
            throw new IllegalArgumentException("leaseTime must be at least " + MIN_LEASE_TIME + ", was " + leaseTime);
        }
        if (leaseTime.compareTo(MAX_LEASE_TIME) > 0) {
            throw new IllegalArgumentException("leaseTime must be at most " + MAX_LEASE_TIME + ", was " + leaseTime);
        }
        return leaseTime;
    }
}
