package io.distlock;

import org.jspecify.annotations.Nullable;

/**
 * Reports that a holder no longer holds its lock: its lease expired without a confirmed renewal,
 * a renewal found another owner, the lock was force-unlocked, or the backend session ended.
 *
 * <p>It is passed to {@link Lease#onLost} listeners and thrown by {@code unlock()} of a lost lock.
 * Whatever the cause, distlock never deletes or extends the new owner's lock on the old holder's behalf.
 * Work done under the lock after the loss must be treated as unprotected; fencing tokens
 * ({@link Lease#fencingToken()}) let the protected resource reject it.
 */
public class LeaseLostException extends LockException {
    private static final long serialVersionUID = 1L;

    private final String lockName;
    private final long fencingToken;

    /** Creates the exception for the named lock, the token of the lost lease and the reason. */
    public LeaseLostException(String lockName, long fencingToken, String reason) {
        this(lockName, fencingToken, reason, null);
    }

    /** Creates the exception with the underlying cause (a backend error that prevented renewal). */
    public LeaseLostException(String lockName, long fencingToken, String reason, @Nullable Throwable cause) {
        super("lease on lock '" + lockName + "' (fencing token " + fencingToken + ") was lost: " + reason, cause);
        this.lockName = lockName;
        this.fencingToken = fencingToken;
    }

    /** Returns the name of the lock whose lease was lost. */
    public String lockName() {
        return lockName;
    }

    /** Returns the fencing token of the lost lease. */
    public long fencingToken() {
        return fencingToken;
    }
}
