package io.distlock.spi;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * The atomic storage operations a backend provides; everything else (reentrancy, waiting, renewal,
 * loss detection) is the engine's. Implementations must be thread-safe and must not block the
 * calling thread: each operation returns a future that the backend completes.
 *
 * <p>Every operation is a compare-and-act on the owner id the engine passes: a backend never
 * releases or renews a lock held under another owner id. Futures complete exceptionally with
 * {@link io.distlock.BackendUnavailableException} when the backend cannot be reached or does not
 * answer within {@link #operationTimeout()}, and with {@link io.distlock.LockException} when it
 * refuses the operation (for example, missing permissions).
 *
 * <p>Optional features are separate capability interfaces, such as {@link BatchRenewal}.
 */
public interface LockBackend extends AutoCloseable {

    /** Returns a short description for messages, e.g. {@code redis://127.0.0.1:6379}; no secrets. */
    String describe();

    /** Returns how long one operation may take before it fails as unavailable. */
    Duration operationTimeout();

    /**
     * Attempts to take the lock for {@code ownerId} with a lease of {@code leaseTime}. If the lock is
     * already held by {@code ownerId} (a retried request), extends it and returns the same token.
     *
     * @return {@link AcquireResult#granted} with a fencing token, or {@link AcquireResult#busy} with
     *     how long the current holder's lease still runs
     */
    CompletableFuture<AcquireResult> tryAcquire(String name, String ownerId, Duration leaseTime);

    /**
     * Extends the lease of {@code ownerId} to {@code leaseTime} from now.
     *
     * @return true if renewed; false if the lock is not held by {@code ownerId} any more
     */
    CompletableFuture<Boolean> renew(String name, String ownerId, Duration leaseTime);

    /**
     * Releases the lock if, and only if, {@code ownerId} holds it, and notifies watchers.
     *
     * @return true if it was released; false if {@code ownerId} did not hold it (lost or never held)
     */
    CompletableFuture<Boolean> release(String name, String ownerId);

    /**
     * Releases the lock whoever holds it, and notifies watchers.
     *
     * @return true if it was held
     */
    CompletableFuture<Boolean> forceRelease(String name);

    /** Returns whether anyone holds the lock. */
    CompletableFuture<Boolean> isLocked(String name);

    /**
     * Starts telling {@code onMaybeFree} when the lock may have become free (a release, a
     * force-release). The future completes once notifications are flowing, so a release after it
     * completes is not missed. Notifications may be lost when the connection drops; the engine
     * polls as a fallback. {@code onMaybeFree} must be cheap and must not block.
     */
    CompletableFuture<ReleaseSubscription> watchReleases(String name, Runnable onMaybeFree);

    /** Closes connections. Called by the engine after it has released what it holds. */
    @Override
    void close();
}
