package io.distlock.spi;

import org.jspecify.annotations.Nullable;

/**
 * Capability: the kinds of lock a backend stores besides the plain lock, for
 * {@link io.distlock.LockClient#getFairLock}, {@code getReadWriteLock} and {@code getSemaphore}. A backend
 * without this capability, or whose method returns null, has no such kind: the engine then throws
 * {@link UnsupportedOperationException} naming the backend.
 *
 * <p>Each kind is a storage of its own: a {@link LockBackend} that implements {@link PollingAcquire} or
 * {@link QueueingAcquire}, like the plain lock's. Its names are separate from the plain lock's (the
 * engine keeps per-name state per kind, and the backend must keep each kind under keys of its own, so
 * that {@code getLock("x")} and {@code getFairLock("x")} are two locks on every backend). The engine calls
 * each method at most once per client and never closes the storages it returns: they share the
 * backend's connection, which {@link LockBackend#close()} closes.
 */
public interface LockKinds {

    /** Returns the storage of fair locks (granted in arrival order across clients), or null if the backend has none. */
    default @Nullable LockBackend fairLocks() {
        return null;
    }

    /** Returns the storage of read-write locks, or null if the backend has none. */
    default @Nullable ReadWriteStorage readWriteLocks() {
        return null;
    }

    /** Returns the storage of semaphores with leased permits, or null if the backend has none. */
    default @Nullable SemaphoreStorage semaphores() {
        return null;
    }
}
