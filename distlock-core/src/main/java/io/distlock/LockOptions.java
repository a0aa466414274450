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
    /** The most local handoffs in a row {@link Builder#localHandoffs} accepts. */
    public static final int MAX_LOCAL_HANDOFFS = 1024;
    /**
     * The default number of local handoffs in a row, 16: the number the checker's soaks ran with (docs/guarantees.md,
     * "Local handoffs under faults").
     */
    public static final int DEFAULT_LOCAL_HANDOFFS = 16;

    private static final LockOptions DEFAULTS = new LockOptions(DEFAULT_LEASE_TIME, true, DEFAULT_LOCAL_HANDOFFS);

    private final Duration leaseTime;
    private final boolean autoRenew;
    private final int localHandoffs;

    private LockOptions(Duration leaseTime, boolean autoRenew, int localHandoffs) {
        this.leaseTime = leaseTime;
        this.autoRenew = autoRenew;
        this.localHandoffs = localHandoffs;
    }

    /** Returns the default options: 30 s lease, renewed automatically, up to 16 local handoffs in a row. */
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

    /**
     * Returns how many times in a row a held lease may pass straight to another thread of this client that waits for the
     * same lock, without a round trip to the server (lock cohorting); {@value #DEFAULT_LOCAL_HANDOFFS} by default, 0 sends
     * every release and acquire to the server. See {@link Builder#localHandoffs}.
     */
    public int localHandoffs() {
        return localHandoffs;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof LockOptions other && leaseTime.equals(other.leaseTime) && autoRenew == other.autoRenew
                && localHandoffs == other.localHandoffs;
    }

    @Override
    public int hashCode() {
        return Objects.hash(leaseTime, autoRenew, localHandoffs);
    }

    @Override
    public String toString() {
        return "LockOptions[leaseTime=" + leaseTime + ", autoRenew=" + autoRenew + (localHandoffs > 0 ? ", localHandoffs=" + localHandoffs : "")
                + "]";
    }

    /** Builds {@link LockOptions}; validates each value when it is set. */
    public static final class Builder {
        private Duration leaseTime;
        private boolean autoRenew;
        private int localHandoffs;

        private Builder(LockOptions from) {
            this.leaseTime = from.leaseTime;
            this.autoRenew = from.autoRenew;
            this.localHandoffs = from.localHandoffs;
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

        /**
         * Lets a release hand the lease straight to the next thread of this client waiting for the same lock, up to
         * {@code handoffs} times in a row, without a round trip to the server (lock cohorting): under contention within
         * one process, most grants then cost no network at all.
         *
         * <p>What stays true: a holder's fencing token is larger than every earlier holder's in this client and than
         * every token the server granted before its run (the server's grant reserves up to {@code handoffs + 1}
         * consecutive tokens, and the next grant elsewhere gets a larger one); a lease is handed on only while it is
         * valid and the server's last word on it is at most 10 ms old; a lost lease is reported to whoever holds it when
         * a renewal or the release finds the loss. What it costs: waiters in other processes wait up to {@code handoffs}
         * holds (and about 10 ms) longer; after a run the release waits for the server, so that they get their turn.
         * What it gives up: a handoff asks the server nothing, so a lock the server lost within those 10 ms (a restart, a
         * failover, another client's force-unlock) can still be handed on, to a holder whose token is then lower than
         * the new holder's elsewhere: a fenced resource refuses it (docs/guarantees.md). A thread hands on only to a waiter
         * with equal options, only leases the watchdog renews ({@code autoRenew}), and only on backends that can reserve
         * token ranges (Redis and SQL locks; see the backend's documentation): elsewhere, and for fair, read-write and semaphore
         * kinds, the option changes nothing.
         *
         * <p>On by default ({@value #DEFAULT_LOCAL_HANDOFFS}) since the checker held with it at soak scale on every deployment
         * where it acts; 0 turns it off, for an application that wants every grant decided by the server.
         *
         * @param handoffs local handoffs in a row, 0 (off) to {@link #MAX_LOCAL_HANDOFFS}; {@value #DEFAULT_LOCAL_HANDOFFS} by default
         * @throws IllegalArgumentException if out of that range
         */
        public Builder localHandoffs(int handoffs) {
            if (handoffs < 0 || handoffs > MAX_LOCAL_HANDOFFS) {
                throw new IllegalArgumentException("localHandoffs must be between 0 and " + MAX_LOCAL_HANDOFFS + ", was " + handoffs);
            }
            this.localHandoffs = handoffs;
            return this;
        }

        /** Returns the immutable options. */
        public LockOptions build() {
            return new LockOptions(leaseTime, autoRenew, localHandoffs);
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
