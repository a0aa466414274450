package io.distlock.spi;

/**
 * What the backend found when it compared a lock's owner with the caller's owner id, answering
 * {@link LockBackend#renew} and {@link LockBackend#release}. The engine turns every answer but
 * {@link #OWNER} into a lease loss with the matching {@link io.distlock.LeaseLostException.Reason}.
 */
public enum OwnerCheck {
    /**
     * The caller's owner id holds the lock: it was renewed, or released. A release that finds the lock
     * already released by the same owner id (a request the client sent again after a reconnect) also
     * answers this.
     */
    OWNER,
    /** Another owner id holds the lock. */
    OTHER_OWNER,
    /** The lock was force-unlocked after the caller got it. */
    FORCE_UNLOCKED,
    /**
     * The backend has no record of the caller's hold: it expired on the server, or the server lost it
     * (restart without persistence, failover to a replica that missed it). Backends that cannot tell a
     * force-unlock or a session expiry from this answer it too.
     */
    MISSING
}
