package io.distlock;

import java.util.Optional;

/**
 * A connection to one lock backend, shared by all locks it hands out. Thread-safe; create one per
 * backend and application, not one per lock.
 *
 * <p>Each backend module provides its own factory, for example
 * {@code RedisLockClient.create("redis://127.0.0.1:6379")}.
 *
 * <p>{@link #close()} stops lease renewal, releases every lock this client still holds, and
 * closes the connection. After close, {@code getLock} and every acquisition throw
 * {@link IllegalStateException}.
 */
public interface LockClient extends AutoCloseable {

    /**
     * Returns the lock with this name, using the client's default {@link LockOptions}.
     * Lock objects are cheap; calling this for every use is fine.
     *
     * @throws IllegalArgumentException if the name is null, blank or longer than the backend allows
     * @throws IllegalStateException if the client is closed
     */
    DistributedLock getLock(String name);

    /**
     * Returns the lock with this name and these options.
     *
     * @throws IllegalArgumentException if the name is invalid, the options are null, or the backend cannot
     *     honour them (for example, a lease longer than a ZooKeeper session)
     * @throws IllegalStateException if the client is closed
     */
    DistributedLock getLock(String name, LockOptions options);

    /**
     * Returns the fair lock with this name: granted in arrival order across all clients, each waiter
     * in turn, with the client's default {@link LockOptions}. Everything else is as for
     * {@link #getLock(String)}. A fair lock is separate from the plain lock of the same name.
     *
     * @throws UnsupportedOperationException if the backend has no fair locks (the message names it)
     * @throws IllegalArgumentException if the name is invalid
     * @throws IllegalStateException if the client is closed
     */
    DistributedLock getFairLock(String name);

    /**
     * Returns the fair lock with this name and these options.
     *
     * @throws UnsupportedOperationException if the backend has no fair locks
     * @throws IllegalArgumentException if the name or the options are invalid for the backend
     * @throws IllegalStateException if the client is closed
     */
    DistributedLock getFairLock(String name, LockOptions options);

    /**
     * Returns the read-write lock with this name, with the client's default {@link LockOptions}.
     *
     * @throws UnsupportedOperationException if the backend has no read-write locks (the message names it)
     * @throws IllegalArgumentException if the name is invalid
     * @throws IllegalStateException if the client is closed
     */
    DistributedReadWriteLock getReadWriteLock(String name);

    /**
     * Returns the read-write lock with this name; both sides acquire with these options.
     *
     * @throws UnsupportedOperationException if the backend has no read-write locks
     * @throws IllegalArgumentException if the name or the options are invalid for the backend
     * @throws IllegalStateException if the client is closed
     */
    DistributedReadWriteLock getReadWriteLock(String name, LockOptions options);

    /**
     * Returns the semaphore with this name and number of permits, whose permits are leases with the
     * client's default {@link LockOptions}.
     *
     * @throws UnsupportedOperationException if the backend has no semaphores (the message names it)
     * @throws IllegalArgumentException if the name is invalid or {@code permits} is not positive
     * @throws IllegalStateException if the client is closed
     */
    DistributedSemaphore getSemaphore(String name, int permits);

    /**
     * Returns the semaphore with this name and number of permits, whose permits are leases with these options.
     *
     * @throws UnsupportedOperationException if the backend has no semaphores
     * @throws IllegalArgumentException if the name, the permits or the options are invalid
     * @throws IllegalStateException if the client is closed
     */
    DistributedSemaphore getSemaphore(String name, int permits, LockOptions options);

    /**
     * Returns an inspector of the locks stored on this client's backend, of every client (not only this one's),
     * or empty if the backend has none. For operators and tools: {@code distlock locks} reads it.
     *
     * <p>Each call of the inspector reads the server; this method itself does not.
     */
    default Optional<LockInspector> inspector() {
        return Optional.empty();
    }

    /**
     * Releases every lock this client holds, stops renewals and closes the backend connection, within
     * about one operation timeout however many locks it holds (the releases go out together and are awaited
     * once, not one timeout per lock). Every
     * lease held is lost first, with {@link LeaseLostException.Reason#CLIENT_CLOSED}: its listeners are
     * told, and a later {@code unlock()} by its owner throws {@link LeaseLostException}. Threads waiting
     * to acquire wake up with {@link IllegalStateException}. Idempotent; never throws. Locks whose release
     * is not confirmed in time expire after their lease.
     */
    @Override
    void close();
}
