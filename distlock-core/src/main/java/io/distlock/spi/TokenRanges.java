package io.distlock.spi;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * Capability of a {@link PollingAcquire} backend: an acquire that reserves a range of consecutive fencing tokens, so
 * that the engine can pass a held lock to another thread of the same client without a round trip and still give it
 * a larger token ({@link io.distlock.LockOptions#localHandoffs()}).
 *
 * <p>The contract is about order, not storage: when {@code tryAcquire(name, owner, lease, count)} grants token
 * {@code t}, the tokens {@code t .. t + count - 1} belong to that grant, and every later grant of the name, to any
 * owner, by any client, after a release, a force-unlock, an expiry or a restart, has a token above {@code t + count - 1}.
 * A retried request (the same owner id, the same count) returns the same {@code t}.
 */
public interface TokenRanges {

    /** The most tokens one grant may reserve. */
    int MAX_TOKENS = io.distlock.LockOptions.MAX_LOCAL_HANDOFFS + 1;

    /**
     * As {@link PollingAcquire#tryAcquire}, reserving {@code count} tokens; the granted token is the first of them.
     *
     * @param count tokens to reserve, 1 to {@link #MAX_TOKENS}; 1 is exactly {@link PollingAcquire#tryAcquire}
     */
    CompletableFuture<AcquireResult> tryAcquire(String name, String ownerId, Duration leaseTime, int count);
}
