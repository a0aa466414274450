package io.distlock.spi;

import java.time.Duration;

/**
 * The outcome of one {@link LockBackend#tryAcquire} call.
 *
 * @param granted whether the caller now holds the lock
 * @param fencingToken the token of the grant (positive), or 0 when not granted
 * @param holderRemaining when not granted, how long the current holder's lease runs at most
 *     ({@link Duration#ZERO} if unknown); zero when granted
 */
public record AcquireResult(boolean granted, long fencingToken, Duration holderRemaining) {

    /** Validates the combination of fields. */
    public AcquireResult {
        if (granted && fencingToken <= 0) {
            throw new IllegalArgumentException("a grant needs a positive fencing token, got " + fencingToken);
        }
        if (holderRemaining == null || holderRemaining.isNegative()) {
            throw new IllegalArgumentException("holderRemaining must be zero or positive, got " + holderRemaining);
        }
    }

    /** Returns a grant with the given fencing token. */
    public static AcquireResult granted(long fencingToken) {
        return new AcquireResult(true, fencingToken, Duration.ZERO);
    }

    /** Returns a refusal; the holder's lease runs at most {@code holderRemaining} more. */
    public static AcquireResult busy(Duration holderRemaining) {
        return new AcquireResult(false, 0, holderRemaining.isNegative() ? Duration.ZERO : holderRemaining);
    }
}
