package io.distlock.spring;

import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * How {@link LockTemplate} takes and keeps a lock: the options of {@link WithLock}, as a value. Immutable: each
 * {@code with} method returns a copy.
 */
public final class LockSettings {
    private static final LockSettings DEFAULTS = new LockSettings(Duration.ZERO, null, Duration.ZERO, WithLock.OnLost.LOG);

    private final Duration waitTime;
    private final @Nullable Duration leaseTime;
    private final Duration minHold;
    private final WithLock.OnLost onLost;

    private LockSettings(Duration waitTime, @Nullable Duration leaseTime, Duration minHold, WithLock.OnLost onLost) {
        this.waitTime = waitTime;
        this.leaseTime = leaseTime;
        this.minHold = minHold;
        this.onLost = onLost;
    }

    /** Returns the defaults: try once, the client's lease, no minimum hold, log a lost lease. */
    public static LockSettings defaults() {
        return DEFAULTS;
    }

    /**
     * Returns these settings with the longest wait for the lock; zero tries once.
     *
     * @throws IllegalArgumentException if null or negative
     */
    public LockSettings waitTime(Duration waitTime) {
        return new LockSettings(notNegative(waitTime, "waitTime"), leaseTime, minHold, onLost);
    }

    /**
     * Returns these settings with the lease, renewed while the work runs; null for the client's.
     *
     * @throws IllegalArgumentException if zero or negative
     */
    public LockSettings leaseTime(@Nullable Duration leaseTime) {
        if (leaseTime != null && (leaseTime.isNegative() || leaseTime.isZero())) {
            throw new IllegalArgumentException("leaseTime must be positive, was " + leaseTime);
        }
        return new LockSettings(waitTime, leaseTime, minHold, onLost);
    }

    /**
     * Returns these settings with the minimum hold: the lock is kept at least this long after the work started.
     *
     * @throws IllegalArgumentException if null or negative
     */
    public LockSettings minHold(Duration minHold) {
        return new LockSettings(waitTime, leaseTime, notNegative(minHold, "minHold"), onLost);
    }

    /** Returns these settings with what to do when the lease is lost while the work runs. */
    public LockSettings onLost(WithLock.OnLost onLost) {
        return new LockSettings(waitTime, leaseTime, minHold, Objects.requireNonNull(onLost, "onLost"));
    }

    /** Returns the longest wait for the lock. */
    public Duration waitTime() {
        return waitTime;
    }

    /** Returns the lease, or null for the client's. */
    public @Nullable Duration leaseTime() {
        return leaseTime;
    }

    /** Returns the minimum hold. */
    public Duration minHold() {
        return minHold;
    }

    /** Returns what to do when the lease is lost while the work runs. */
    public WithLock.OnLost onLost() {
        return onLost;
    }

    private static Duration notNegative(Duration duration, String what) {
        if (duration == null || duration.isNegative()) {
            throw new IllegalArgumentException(what + " must be zero or more, was " + duration);
        }
        return duration;
    }

    @Override
    public String toString() {
        return "LockSettings[waitTime=" + waitTime + ", leaseTime=" + leaseTime + ", minHold=" + minHold + ", onLost=" + onLost + "]";
    }
}
