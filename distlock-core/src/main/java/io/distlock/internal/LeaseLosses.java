package io.distlock.internal;

import io.distlock.LeaseLostException;
import io.distlock.LeaseLostException.Reason;
import io.distlock.spi.LockBackend;
import io.distlock.spi.OwnerCheck;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one way a lease is lost: marks the acquisition lost (once), stops its renewals, tells its
 * listeners with the reason, and, where the backend may still hold the lock under this owner id, lets
 * go of it there.
 */
final class LeaseLosses {
    /*
     * Every trigger, and its reason:
     *
     * 1. Watchdog expiry check: the local deadline (request sent + lease - drift) passed without a
     *    confirmed renewal -> EXPIRED. With autoRenew off, the lease simply ran out. Lets go: the server
     *    may still hold it (renewals lost on the way), and a compare-and-release frees it for others now.
     * 2. A renewal answered that this owner no longer holds the lock -> TAKEN_OVER (another owner),
     *    FORCE_UNLOCKED, or SERVER_LOST_LOCK (no record: restart, failover, expiry on the server).
     * 3. The release of the last hold found the same (unlock() then throws the loss).
     * 4. forceUnlock() through this client, for the holder read before the call -> FORCE_UNLOCKED.
     * 5. The backend's session was lost (or suspended, when configured so) -> SESSION_LOST, also for a
     *    grant whose request was sent before the loss and registered after it (SessionState). Lets go.
     * 6. close() of the client -> CLIENT_CLOSED; close releases these leases itself, all at once.
     *
     * Re-entering a lost lock (lock()/acquire() by the holding thread) throws the recorded loss again;
     * it is not a new loss. Nothing here ever touches another owner's lock: letting go is a
     * compare-and-release under this acquisition's own owner id.
     */
    private static final Logger log = LoggerFactory.getLogger(LeaseLosses.class);

    private final LockBackend backend;
    private final Consumer<Acquisition> stopWatching;

    LeaseLosses(LockBackend backend, Consumer<Acquisition> stopWatching) {
        this.backend = backend;
        this.stopWatching = stopWatching;
    }

    /**
     * Marks the lease lost for {@code reason}; returns false if it had already ended (released or lost).
     *
     * @param detail what happened, in words, for the message
     * @param cause the backend error behind it, or null
     */
    boolean lose(Acquisition acquisition, Reason reason, String detail, @Nullable Throwable cause) {
        LeaseLostException lost = new LeaseLostException(acquisition.lockName(), acquisition.fencingToken, reason, detail, cause);
        if (!acquisition.markLost(lost, detail)) {
            return false;
        }
        stopWatching.accept(acquisition);
        if (reason == Reason.EXPIRED || reason == Reason.SESSION_LOST) {
            letGo(acquisition);
        }
        return true;
    }

    /** Frees the lock on the backend if it is still held under this acquisition's owner id; best effort, never throws. */
    private void letGo(Acquisition acquisition) {
        try {
            acquisition.backend().release(acquisition.lockName(), acquisition.ownerId).whenComplete((found, error) -> {
                if (error != null) {
                    log.debug("letting go of lost lock '{}' failed; it expires on the server", acquisition.lockName(), error);
                }
            });
        } catch (RuntimeException e) {
            log.debug("letting go of lost lock '{}' failed; it expires on the server", acquisition.lockName(), e);
        }
    }

    /** Loses a lease whose renewal or release found {@code check} instead of this owner; {@code by} says which. */
    boolean found(Acquisition acquisition, OwnerCheck check, String by) {
        return switch (check) {
            case OWNER -> false;
            case OTHER_OWNER -> lose(acquisition, Reason.TAKEN_OVER, by + " found another owner holding the lock on " + backend.describe(), null);
            case FORCE_UNLOCKED -> lose(acquisition, Reason.FORCE_UNLOCKED, by + " found the lock force-unlocked on " + backend.describe(), null);
            case MISSING -> lose(acquisition, Reason.SERVER_LOST_LOCK, by + " found no hold of this owner on " + backend.describe()
                    + " (it expired there, or a restart or failover lost it)", null);
        };
    }

    /** Loses a lease whose renewal was confirmed only after its local deadline had passed (see {@link Acquisition#confirmRenewal}). */
    boolean confirmedTooLate(Acquisition acquisition) {
        return lose(acquisition, Reason.EXPIRED, "a renewal was confirmed by " + backend.describe() + " only after the lease's local deadline had"
                + " passed (the process paused, or the answer was slow): from that deadline on the lease was not valid", null);
    }

    /** Loses a lease whose local deadline passed without a confirmed renewal. */
    boolean expired(Acquisition acquisition) {
        String detail = acquisition.options.autoRenew()
                ? "no renewal was confirmed by " + backend.describe() + " within the lease time of " + acquisition.options.leaseTime()
                : "its lease time of " + acquisition.options.leaseTime() + " ran out (autoRenew is off)";
        return lose(acquisition, Reason.EXPIRED, detail, null);
    }
}
