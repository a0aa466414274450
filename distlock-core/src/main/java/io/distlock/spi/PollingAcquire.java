package io.distlock.spi;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * Capability: the backend acquires by being asked (Redis, SQL). The engine asks with
 * {@link #tryAcquire}; while the lock is busy, its waiter sleeps until {@link #watchReleases} says the
 * lock may be free, the holder's lease runs out, or the fallback poll comes round, and asks again.
 *
 * <p>A backend implements exactly one of {@code PollingAcquire} and {@link QueueingAcquire}.
 */
public interface PollingAcquire {

    /**
     * Attempts to take the lock for {@code ownerId} with a lease of {@code leaseTime}. If the lock is
     * already held by {@code ownerId} (a retried request), extends it and returns the same token.
     *
     * @return {@link AcquireResult#granted} with a fencing token, or {@link AcquireResult#busy} with
     *     how long the current holder's lease still runs
     */
    CompletableFuture<AcquireResult> tryAcquire(String name, String ownerId, Duration leaseTime);

    /**
     * Starts telling {@code onMaybeFree} when the lock may have become free (a release, a
     * force-release). The future completes once notifications are flowing, so a release after it
     * completes is not missed. Notifications may be lost when the connection drops; the engine
     * polls as a fallback. {@code onMaybeFree} must be cheap and must not block.
     */
    CompletableFuture<ReleaseSubscription> watchReleases(String name, Runnable onMaybeFree);
}
