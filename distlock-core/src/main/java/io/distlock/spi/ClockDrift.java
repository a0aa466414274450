package io.distlock.spi;

import java.time.Duration;

/**
 * The margin by which a lease is trusted for less than its length: clocks of client and server may run
 * at slightly different rates. 1 % of the lease plus 2 ms, as the RedLock algorithm suggests. The engine
 * and every backend that computes a validity (RedLock) use this one formula.
 */
public final class ClockDrift {
    private ClockDrift() {}

    /** Returns the drift allowance for a lease of {@code leaseTime}, in nanoseconds. */
    public static long allowanceNanos(Duration leaseTime) {
        return leaseTime.toNanos() / 100 + 2_000_000L;
    }

    /**
     * Returns the local deadline of a lease of {@code leaseTime} confirmed by a request sent at
     * {@code sentNanos} (a {@link System#nanoTime()} reading): the send time plus the lease, less the drift.
     */
    public static long deadlineNanos(long sentNanos, Duration leaseTime) {
        return sentNanos + leaseTime.toNanos() - allowanceNanos(leaseTime);
    }
}
