package io.distlock.spi;

import io.distlock.LockOptions;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * The atomic storage operations a backend provides; everything else (reentrancy, waiting, renewal,
 * loss detection) is the engine's. Implementations must be thread-safe and must not block the
 * calling thread: each operation returns a future that the backend completes.
 *
 * <p>How a backend acquires is a capability, and a backend implements exactly one:
 * {@link PollingAcquire} (ask, and be told when the lock may be free) or {@link QueueingAcquire}
 * (join a queue, and be told when it is your turn). Further optional features are capabilities too:
 * {@link BatchRenewal}, {@link SessionEvents}.
 *
 * <p>Every operation is a compare-and-act on the owner id the engine passes: a backend never
 * releases or renews a lock held under another owner id. Futures complete exceptionally with
 * {@link io.distlock.BackendUnavailableException} when the backend cannot be reached or does not
 * answer within {@link #operationTimeout()}, and with {@link io.distlock.LockException} when it
 * refuses the operation (for example, missing permissions).
 */
public interface LockBackend extends AutoCloseable {

    /** Returns a short description for messages, e.g. {@code redis://127.0.0.1:6379}; no secrets. */
    String describe();

    /** Returns how long one operation may take before it fails as unavailable. */
    Duration operationTimeout();

    /**
     * Checks that the backend can honour these options for a lock; the engine calls it for the client's
     * default options and for every {@code getLock(name, options)}. For example, a session-bound backend
     * refuses a lease longer than its session, whose expiry would end the lock while the lease still
     * looked valid.
     *
     * @throws IllegalArgumentException naming the option, the limit and why
     */
    default void checkOptions(LockOptions options) {
        // every option is fine
    }

    /**
     * Extends the lease of {@code ownerId} to {@code leaseTime} from now. Session-bound backends, whose
     * locks last as long as the session, confirm that the lock is still held instead.
     *
     * @return {@link OwnerCheck#OWNER} if renewed; otherwise what the backend found instead
     */
    CompletableFuture<OwnerCheck> renew(String name, String ownerId, Duration leaseTime);

    /**
     * Returns whether {@link #renew} bounds the lock on the server: the server frees it by itself when the lease it was
     * last given runs out (Redis, SQL). Then a holder may stop renewing and leave the lock held for a given time
     * ({@link io.distlock.Lease#expireAfter}). False (the default) for session-bound backends, whose locks last as long
     * as the client's session (ZooKeeper, etcd).
     */
    default boolean leasesEndOnTheServer() {
        return false;
    }

    /**
     * Releases the lock if, and only if, {@code ownerId} holds it, and notifies waiters.
     *
     * @return {@link OwnerCheck#OWNER} if it was released (also when this owner had released it already,
     *     a retried request); otherwise what the backend found instead, having changed nothing
     */
    CompletableFuture<OwnerCheck> release(String name, String ownerId);

    /**
     * Releases the lock whoever holds it, and notifies waiters.
     *
     * @return true if it was held
     */
    CompletableFuture<Boolean> forceRelease(String name);

    /** Returns whether anyone holds the lock. */
    CompletableFuture<Boolean> isLocked(String name);

    /** Closes connections. Called by the engine after it has released what it holds. */
    @Override
    void close();
}
