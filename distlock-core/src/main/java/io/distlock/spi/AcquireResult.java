package io.distlock.spi;

import java.time.Duration;

/**
 * The outcome of one {@link LockBackend#tryAcquire} call or queue turn check.
 *
 * @param granted whether the caller now holds the lock
 * @param fencingToken the token of the grant (positive), or 0 when not granted
 * @param holderRemaining when not granted, how long the current holder's lease runs at most; for a queue
 *     turn check, how long until the queue may move without anyone's call (the first holder lease or waiter
 *     heartbeat runs out); {@link Duration#ZERO} if unknown (the engine then waits for a notification or its
 *     fallback poll); zero when granted
 * @param notifiedLease for a grant the backend made earlier on a queued caller's behalf and told it of
 *     (see {@link #notified}): the lease that grant has until the engine renews it; zero otherwise
 * @param lastToken for a grant of a {@link TokenRanges} acquire, the last token reserved for it (at least
 *     {@code fencingToken}; it may be fewer than asked for); {@code fencingToken} for other grants; 0 when not granted
 */
public record AcquireResult(boolean granted, long fencingToken, Duration holderRemaining, Duration notifiedLease, long lastToken) {

    /** Validates the combination of fields. */
    public AcquireResult {
        if (granted ? lastToken < fencingToken : lastToken != 0) {
            throw new IllegalArgumentException("lastToken must be at least the fencing token of a grant, and 0 otherwise, got "
                    + lastToken + " for token " + fencingToken);
        }
        if (granted && fencingToken <= 0) {
            throw new IllegalArgumentException("a grant needs a positive fencing token, got " + fencingToken);
        }
        if (holderRemaining == null || holderRemaining.isNegative()) {
            throw new IllegalArgumentException("holderRemaining must be zero or positive, got " + holderRemaining);
        }
        if (notifiedLease == null || notifiedLease.isNegative() || (!granted && !notifiedLease.isZero())) {
            throw new IllegalArgumentException("notifiedLease must be zero, or positive on a grant, got " + notifiedLease);
        }
    }

    /** A result without a token range. */
    public AcquireResult(boolean granted, long fencingToken, Duration holderRemaining, Duration notifiedLease) {
        this(granted, fencingToken, holderRemaining, notifiedLease, granted ? fencingToken : 0);
    }

    /** A result of this call (not {@link #notified}). */
    public AcquireResult(boolean granted, long fencingToken, Duration holderRemaining) {
        this(granted, fencingToken, holderRemaining, Duration.ZERO);
    }

    /**
     * Returns a grant of a {@link TokenRanges} acquire: the tokens {@code fencingToken .. lastToken} are the caller's.
     *
     * @throws IllegalArgumentException if {@code lastToken < fencingToken}
     */
    public static AcquireResult grantedRange(long fencingToken, long lastToken) {
        return new AcquireResult(true, fencingToken, Duration.ZERO, Duration.ZERO, lastToken);
    }

    /** Returns a grant with the given fencing token; its lease runs from when the request was sent. */
    public static AcquireResult granted(long fencingToken) {
        return new AcquireResult(true, fencingToken, Duration.ZERO);
    }

    /**
     * Returns a grant that the backend made on a queued caller's behalf, after the caller's last turn
     * check that found it still queued, and told the caller of (a message), answered without a request.
     * Its lease is only {@code lease}, counted from when that last queued check (or the join) was sent —
     * the grant was made later, so that is never after the backend's own expiry — until the engine
     * renews it, which it does at once.
     *
     * @throws IllegalArgumentException if {@code lease} is not positive
     */
    public static AcquireResult notified(long fencingToken, Duration lease) {
        if (lease == null || lease.isNegative() || lease.isZero()) {
            throw new IllegalArgumentException("a notified grant needs a positive lease, got " + lease);
        }
        return new AcquireResult(true, fencingToken, Duration.ZERO, lease);
    }

    /** Returns a refusal; the holder's lease runs at most {@code holderRemaining} more. */
    public static AcquireResult busy(Duration holderRemaining) {
        return new AcquireResult(false, 0, holderRemaining.isNegative() ? Duration.ZERO : holderRemaining);
    }

    /** Returns whether this is a {@link #notified} grant. */
    public boolean wasNotified() {
        return granted && !notifiedLease.isZero();
    }
}
