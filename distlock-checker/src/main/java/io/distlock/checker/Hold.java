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
 */
public record Hold(int process, long token, long startNanos, long endNanos, String endedBy) {}
