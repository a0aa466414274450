package io.distlock;

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
     * Releases every lock this client holds, stops renewals and closes the backend connection, within
     * about one operation timeout however many locks it holds (the releases go out together). Every
     * lease held is lost first, with {@link LeaseLostException.Reason#CLIENT_CLOSED}: its listeners are
     * told, and a later {@code unlock()} by its owner throws {@link LeaseLostException}. Threads waiting
     * to acquire wake up with {@link IllegalStateException}. Idempotent; never throws. Locks whose release
     * is not confirmed in time expire after their lease.
     */
    @Override
    void close();
}
