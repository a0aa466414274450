package io.distlock;

import java.time.Duration;

/**
 * Thrown by {@link DistributedLock#acquire(Duration)} when the lock could not be acquired within the
 * wait time. Nothing is held when this is thrown.
 */
public class LockAcquireTimeoutException extends LockException {
    private static final long serialVersionUID = 1L;

    private final String lockName;
    private final Duration waitTime;

    /** Creates the exception for the named lock and the wait time that ran out. */
    public LockAcquireTimeoutException(String lockName, Duration waitTime) {
        super("lock '" + lockName + "' was not acquired within " + waitTime);
        this.lockName = lockName;
        this.waitTime = waitTime;
    }

    /** Returns the name of the lock that was not acquired. */
    public String lockName() {
        return lockName;
    }

    /** Returns the wait time that ran out. */
    public Duration waitTime() {
        return waitTime;
    }
}
