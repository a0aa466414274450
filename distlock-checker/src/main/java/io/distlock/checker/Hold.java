package io.distlock.checker;

/**
 * A holding interval as the holder saw it: from its acquire succeeding until it started to release,
 * learned its lease was lost, was killed, or the run ended; with the lease it had been granted.
 *
 * @param process the holder
 * @param token its fencing token (0 for locks without tokens)
 * @param invokeNanos when its acquire was invoked
 * @param startNanos acquire ok
 * @param endNanos end of the interval
 * @param endedBy release, lost, abort, killed or end-of-run
 * @param shared a read hold or a semaphore permit (may overlap other shared holds, up to the history's
 *     {@link History#sharedLimit()}), not an exclusive one
 * @param leaseEndNanos the latest local deadline of its lease that the holder recorded ({@link Operation#LEASE}
 *     events: at the grant and after each confirmed renewal), or {@link #NO_LEASE_RECORD} if it recorded none
 *     (a lock without leases in the history)
 */
public record Hold(int process, long token, long invokeNanos, long startNanos, long endNanos, String endedBy, boolean shared,
        long leaseEndNanos) {
    /** {@link #leaseEndNanos()} of a hold whose lease was never recorded: it counts as valid until it ends. */
    public static final long NO_LEASE_RECORD = Long.MAX_VALUE;

    /** Returns whether the holder recorded its lease. */
    public boolean leaseRecorded() {
        return leaseEndNanos != NO_LEASE_RECORD;
    }

    /**
     * Returns whether the lease had run out, by the holder's own record, at {@code nanos}: from then on the
     * holder's {@code Lease.isValid()} was false, whether or not it had noticed yet (a paused holder notices
     * when it resumes).
     */
    public boolean leaseOverAt(long nanos) {
        return leaseRecorded() && nanos - leaseEndNanos >= 0;
    }
}
