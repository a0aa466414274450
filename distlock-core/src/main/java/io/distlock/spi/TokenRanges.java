package io.distlock.spi;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * Capability of a {@link PollingAcquire} backend: an acquire that reserves a range of consecutive fencing tokens, so
 * that the engine can pass a held lock to another thread of the same client without a round trip and still give it
 * a larger token ({@link io.distlock.LockOptions#localHandoffs()}).
 *
 * <p>The contract is about order, not storage: when {@code tryAcquire(name, owner, lease, count)} grants the tokens
 * {@code fencingToken .. lastToken} ({@link AcquireResult#grantedRange}; at most {@code count}, possibly fewer), every
 * later grant of the name, to any owner, by any client, after a release, a force-unlock, an expiry or a restart, has a
 * token above {@code lastToken}. A retried request (the same owner id) must not hand out a token the first one may have
 * handed out: it may answer with the range's last token alone. A backend whose tokens follow a clock (Redis: the
 * server's TIME) must not let reservations run the tokens ahead of that clock further than a restart takes, or a token
 * after a restart could be lower than one reserved before it.
 */
public interface TokenRanges {

    /** The most tokens one grant may reserve. */
    int MAX_TOKENS = io.distlock.LockOptions.MAX_LOCAL_HANDOFFS + 1;

    /**
     * As {@link PollingAcquire#tryAcquire}, reserving up to {@code count} tokens; the granted token is the first of them.
     *
     * @param count tokens to reserve, 1 to {@link #MAX_TOKENS}; 1 is exactly {@link PollingAcquire#tryAcquire}
     */
    CompletableFuture<AcquireResult> tryAcquire(String name, String ownerId, Duration leaseTime, int count);

    /**
     * Checks a count of tokens to reserve, for implementations of {@link #tryAcquire(String, String, Duration, int)}.
     *
     * @return null if it is 1 to {@link #MAX_TOKENS}, else a failed future naming the range and the count
     */
    static <T> @Nullable CompletableFuture<T> refuseCount(int count) {
        if (count >= 1 && count <= MAX_TOKENS) {
            return null;
        }
        return CompletableFuture.failedFuture(new IllegalArgumentException("tokens to reserve must be between 1 and " + MAX_TOKENS
                + ", was " + count));
    }
}
