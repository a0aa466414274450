package io.distlock.checker;

/**
 * A holding interval as the holder saw it: from its acquire succeeding until it started to release,
 * learned its lease was lost, was killed, or the run ended.
 *
 * @param process the holder
 * @param token its fencing token (0 for locks without tokens)
 * @param startNanos acquire ok
 * @param endNanos end of the interval
 * @param endedBy release, lost, abort, killed or end-of-run
 * @param shared a read hold or a semaphore permit (may overlap other shared holds, up to the history's
 *     {@link History#sharedLimit()}), not an exclusive one
 */
public record Hold(int process, long token, long startNanos, long endNanos, String endedBy, boolean shared) {
    /** An exclusive hold. */
    public Hold(int process, long token, long startNanos, long endNanos, String endedBy) {
        this(process, token, startNanos, endNanos, endedBy, false);
    }
}
