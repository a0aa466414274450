package io.distlock.internal;

import io.distlock.LockOptions;
import io.distlock.spi.OwnerCheck;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A lease being passed from a releasing holder to the next thread of the same client at the slot's gate, without a
 * round trip (lock cohorting, {@link LockOptions#localHandoffs()}): the server keeps the lock under the same owner id,
 * and the next holder takes the next token of the range the server grant reserved.
 */
final class CohortHandoff {
    /*
     * Protocol. The releasing holder, still past the gate, decides to hand on (below), marks its acquisition released
     * (its holder is done: its listeners, metrics and hold count end there), parks a CohortHandoff in the slot and opens
     * the gate. The next thread past the gate takes it (claims it: `parked` is an atomic reference, taken and cleared at once)
     * and, if it is still usable for that thread, holds the lock with it: same owner id, next token, the same lease
     * deadline, the watchdog renewing it from when the last renewal was sent. If not usable, the taker releases it on
     * the server under its owner id (compare-and-release: it can never free anyone else's lock) and asks the server.
     *
     * A parked lease nobody takes (every waiter gave up between the decision and the opening) must not sit in the slot
     * until it expires, keeping other processes out: whoever sees the gate free with a lease parked takes the gate and
     * releases the lease. The releaser checks once after opening the gate (no thread queued any more), and each waiter
     * that gives up checks on its way out; between the two, one of them sees it (see LockAcquirer).
     *
     * Hand on only when: the kind is exclusive and its storage reserved a token range (the acquisition has a token left
     * in it), the lease is renewed by the watchdog, a thread waits at the gate, the lease is trusted for more than one
     * renew interval yet (a lease close to its end is not worth passing on, and an outage shows first as renewals that
     * fail), and the server confirmed the lease (its grant's or a renewal's answer arrived) at most MAX_CONFIRMATION_AGE_NANOS ago,
     * also when it is taken. That bounds a run in time (the remote waiters' delay) and, above all, how stale a handed-on
     * lease can be: the server may have lost it since its last word (a restart, a failover, a force-unlock by another
     * client), and a handoff asks nothing, so a holder that takes it may hold a lost lease, with a token below that of a
     * holder the server granted meanwhile, until a renewal or the release tells it; bounded by 10 ms, as a lease lost
     * just after a grant is a window every lease lock has. The taker also needs options equal to the holder's (a thread
     * asking for another lease time must get it from the server) and the same backend session.
     *
     * A watchdog renewal of the holder still on its way when it hands on is answered to nobody (the holder's acquisition
     * is no longer watched). The taker's first renewal is due when that one was (the lease is timed from the same send
     * time), so it goes out at once and finds what that one would have: a lease lost meanwhile reaches the taker one round
     * trip later, not one interval later.
     *
     * A force-unlock through this client records the owner ids it ended in the slot (see EngineLock#forceUnlock): a
     * parked lease under one of them is dropped, and a thread that took one just before is told of the loss.
     */
    private static final Logger log = LoggerFactory.getLogger(CohortHandoff.class);
    /** A lease is handed on only this long after the server last confirmed it (its grant or a renewal). */
    static final long MAX_CONFIRMATION_AGE_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    final String ownerId;
    final long token;
    final long lastToken;
    /** When the request that set the lease's deadline was sent. */
    final long leaseFromNanos;
    final long validUntilNanos;
    final long sessionEpoch;
    final long confirmedNanos;
    final LockOptions options;

    private CohortHandoff(Acquisition from) {
        this.ownerId = from.ownerId;
        this.token = from.fencingToken + 1;
        this.lastToken = from.lastToken;
        this.leaseFromNanos = from.leaseFromNanos();
        this.validUntilNanos = from.validUntilNanos();
        this.sessionEpoch = from.sessionEpoch;
        this.confirmedNanos = from.confirmedNanos();
        this.options = from.options;
    }

    /**
     * Ends {@code acquisition} for its holder and parks its lease in the slot for the next thread at the gate, if it may
     * be handed on; the caller still holds the gate and has stopped the watchdog for it.
     *
     * @return the parked lease, or null if it may not be handed on (then the caller releases it on the server)
     */
    static @Nullable CohortHandoff park(Acquisition acquisition, EngineClock clock) {
        LockSlot slot = acquisition.slot;
        LockOptions options = acquisition.options;
        if (acquisition.fencingToken >= acquisition.lastToken || !options.autoRenew() || slot.space.shared || !slot.gate.hasQueuedThreads()) {
            return null;
        }
        long now = clock.nanoTime();
        if (!confirmedLately(acquisition.confirmedNanos(), now) || !trustedBeyondNextRenewal(acquisition.validUntilNanos(), options, now)
                || !acquisition.isValid()) {
            return null;
        }
        CohortHandoff parked = new CohortHandoff(acquisition);
        // parked before the holder's end is recorded: a close that loses the holder first makes markReleased fail; a close
        // after it (even one run by a listener of that end) finds the lease parked and releases it with the others
        slot.parked.set(parked);
        if (!acquisition.markReleased()) {
            slot.parked.compareAndSet(parked, null); // lost meanwhile: the caller's release path reports it
            return null;
        }
        return parked;
    }

    /**
     * Takes the lease parked in the slot, if any; call holding the gate.
     *
     * @return a grant of it for a thread asking with {@code options} in session {@code sessionEpoch}, or null: nothing
     *     parked, or parked but not usable (then released on the server)
     */
    static @Nullable Grant take(LockSlot slot, LockOptions options, long sessionEpoch, EngineClock clock) {
        CohortHandoff parked = slot.parked.getAndSet(null);
        if (parked == null) {
            return null;
        }
        if (slot.revoked(parked.ownerId)) {
            return null; // its hold on the server is gone (force-unlocked): nothing to release
        }
        long now = clock.nanoTime();
        if (!parked.options.equals(options) || parked.sessionEpoch != sessionEpoch || !confirmedLately(parked.confirmedNanos, now)
                || !trustedBeyondNextRenewal(parked.validUntilNanos, parked.options, now)) {
            parked.releaseOnServer(slot);
            return null;
        }
        return new Grant(parked.ownerId, parked.token, parked.leaseFromNanos, parked.sessionEpoch, options.leaseTime().toNanos(),
                parked.lastToken, parked.confirmedNanos, true);
    }

    /**
     * Releases a parked lease nobody took, if the gate is free; call after the gate opened (by its releaser once no
     * thread waits, and by each waiter that gave up). Whoever holds the gate instead takes the parked lease itself.
     */
    static void reclaimIfUnclaimed(LockSlot slot) {
        if (slot.parked.get() == null || slot.gate.hasQueuedThreads() || !slot.gate.tryAcquire()) {
            return; // nothing parked; or a queued thread gets the gate and takes it (or gives up and comes here)
        }
        try {
            CohortHandoff parked = slot.parked.getAndSet(null);
            if (parked != null && !slot.revoked(parked.ownerId)) {
                log.debug("nobody took the handed-on lease of lock '{}'; releasing it", slot.name);
                parked.releaseOnServer(slot);
            }
        } finally {
            slot.gate.release();
        }
    }

    /**
     * Takes the lease parked in the slot for the client's close, before the close opens the gates; returns its release
     * on the server, or null if none was parked (or it was force-unlocked). Never throws.
     */
    static @Nullable CompletableFuture<OwnerCheck> releaseForClose(LockSlot slot) {
        CohortHandoff parked = slot.parked.getAndSet(null);
        if (parked == null || slot.revoked(parked.ownerId)) {
            return null;
        }
        try {
            return slot.space.backend.release(slot.name, parked.ownerId);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** Whether the server's last confirmation of a lease, at {@code confirmedNanos}, is at most MAX_CONFIRMATION_AGE_NANOS old. */
    private static boolean confirmedLately(long confirmedNanos, long now) {
        return now - confirmedNanos - MAX_CONFIRMATION_AGE_NANOS <= 0;
    }

    /** Whether a lease trusted until {@code validUntilNanos} is still trusted one renew interval from {@code now}. */
    private static boolean trustedBeyondNextRenewal(long validUntilNanos, LockOptions options, long now) {
        return validUntilNanos - now - options.renewInterval().toNanos() > 0;
    }

    /** Compare-and-release under this owner id; best effort, never throws (the lease expires on the server otherwise). */
    private void releaseOnServer(LockSlot slot) {
        try {
            CompletableFuture<OwnerCheck> released = slot.space.backend.release(slot.name, ownerId);
            released.whenComplete((found, error) -> {
                if (error != null) {
                    log.debug("could not release the unused handed-on lease of lock '{}'; it expires on the server", slot.name, error);
                }
            });
        } catch (RuntimeException e) {
            log.debug("could not release the unused handed-on lease of lock '{}'; it expires on the server", slot.name, e);
        }
    }

    @Override
    public String toString() {
        return "CohortHandoff[" + ownerId + ", token " + token + " of " + lastToken + "]";
    }
}
