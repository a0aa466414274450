package io.distlock;

import org.jspecify.annotations.Nullable;

/**
 * Reports that a holder no longer holds its lock, with the {@link Reason}: its lease expired without a
 * confirmed renewal, another owner holds the lock now, the lock was force-unlocked, the backend session
 * ended, the server lost the lock, or the client was closed.
 *
 * <p>It is passed to {@link Lease#onLost} listeners and thrown by {@code unlock()} of a lost lock.
 * Whatever the cause, distlock never deletes or extends the new owner's lock on the old holder's behalf.
 * Work done under the lock after the loss must be treated as unprotected; fencing tokens
 * ({@link Lease#fencingToken()}) let the protected resource reject it. Branch on {@link #reason()},
 * not on the message.
 */
public class LeaseLostException extends LockException {
    private static final long serialVersionUID = 1L;

    /** Why a lease was lost. */
    public enum Reason {
        /**
         * The lease's local deadline passed without a confirmed renewal: the backend was unreachable or
         * too slow, the holder's process was paused, or (with {@code autoRenew(false)}) the lease time ran out.
         */
        EXPIRED,
        /** A renewal or the release found another owner holding the lock. */
        TAKEN_OVER,
        /** The lock was force-unlocked ({@link DistributedLock#forceUnlock()}), through this client or another. */
        FORCE_UNLOCKED,
        /** The backend session the lease depends on (ZooKeeper) was lost or, by configuration, suspended. */
        SESSION_LOST,
        /**
         * The backend no longer has the lock under this owner and cannot say who took it: a restart without
         * persistence or a failover to a replica that missed it lost it, or it expired on the server.
         */
        SERVER_LOST_LOCK,
        /** The lock client was closed while the lease was held; close released it. */
        CLIENT_CLOSED
    }

    private final String lockName;
    private final long fencingToken;
    private final Reason reason;

    /**
     * Creates the exception for the named lock and the token of the lost lease.
     *
     * @param detail what happened, in words, for the message (e.g. which backend did not answer)
     * @param cause the underlying error (a backend failure that prevented renewal), or null
     */
    public LeaseLostException(String lockName, long fencingToken, Reason reason, String detail, @Nullable Throwable cause) {
        super("lease on lock '" + lockName + "' (fencing token " + fencingToken + ") was lost (" + reason + "): " + detail, cause);
        this.lockName = lockName;
        this.fencingToken = fencingToken;
        this.reason = reason;
    }

    /** Returns the name of the lock whose lease was lost. */
    public String lockName() {
        return lockName;
    }

    /** Returns the fencing token of the lost lease. */
    public long fencingToken() {
        return fencingToken;
    }

    /** Returns why the lease was lost. */
    public Reason reason() {
        return reason;
    }
}
