package io.distlock.internal;

import io.distlock.LeaseLostException;
import io.distlock.LockOptions;
import io.distlock.spi.LockBackend;
import io.distlock.spi.OwnerCheck;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Acquires and releases backend locks for one client and kind: the local gate, turning a backend grant into a
 * held {@link Acquisition}, and the release of the last hold, including the early local handoff.
 */
final class LockAcquirer {
    /*
     * Acquire: pass the slot's fair gate (local FIFO queue, no backend traffic), then let the granter
     * (polling or queueing, by the backend's capability) get a grant. The thread keeps the gate while it
     * holds the lock; the release of the last hold opens it.
     *
     * Release: stop renewals, mark the lease untrusted, send the compare-and-release, and wait for its
     * answer. A release that finds the lock not ours loses the lease with the reason the backend gives.
     * A release that cannot be confirmed (outage) leaves the lock to expire with its lease.
     */
    private static final Logger log = LoggerFactory.getLogger(LockAcquirer.class);
    static final long FOREVER = -1;
    /** How many local handoffs in a row may skip waiting for the release's confirmation. */
    static final int MAX_EARLY_HANDOFFS = 4;
    /** Serialize renewals by hand per acquisition, without a lock in every acquisition (they are rare). */
    private static final ReentrantLock[] RENEWING_BY_HAND = new ReentrantLock[16];

    static {
        for (int i = 0; i < RENEWING_BY_HAND.length; i++) {
            RENEWING_BY_HAND[i] = new ReentrantLock();
        }
    }

    private final EngineContext engine;
    private final LockBackend backend;
    private final Granter granter;

    LockAcquirer(EngineContext engine, LockSpace space, Granter granter) {
        this.engine = engine;
        this.backend = space.backend;
        this.granter = granter;
    }

    /** Returns how this kind gets grants from its storage. */
    Granter granter() {
        return granter;
    }

    /** Returns a new acquisition held by the calling thread, or null if the wait ran out. */
    @Nullable Acquisition acquire(LockSlot slot, LockOptions options, long waitNanos) throws InterruptedException {
        return acquire(slot, options, waitNanos, granter);
    }

    /**
     * As {@link #acquire(LockSlot, LockOptions, long)}, with the grant from {@code granter} (a read-write lock's downgrade).
     * Never returns an acquisition that was lost as it was registered (a grant whose request was sent before the
     * backend's session was lost belongs to the dead session): that one has let go, and the wait goes on for a new grant.
     */
    @Nullable Acquisition acquire(LockSlot slot, LockOptions options, long waitNanos, Granter granter) throws InterruptedException {
        WaitDeadline deadline = WaitDeadline.start(engine.clock(), waitNanos);
        while (true) {
            Acquisition acquisition = acquireOnce(slot, options, deadline.remainingWait(), granter);
            if (acquisition == null || acquisition.state() != Acquisition.State.LOST) {
                return acquisition;
            }
            release(acquisition, false); // lost already (and let go): frees the slot and the gate
            log.debug("a grant of lock '{}' crossed a loss of the backend's session; waiting on for a new one", slot.name);
            if (deadline.left() <= 0) {
                return null;
            }
        }
    }

    private @Nullable Acquisition acquireOnce(LockSlot slot, LockOptions options, long waitNanos, Granter granter) throws InterruptedException {
        WaitDeadline deadline = WaitDeadline.start(engine.clock(), waitNanos);
        boolean passed = false;
        try {
            if (waitNanos == FOREVER) {
                slot.gate.acquire();
            } else if (!slot.gate.tryAcquire(waitNanos, TimeUnit.NANOSECONDS)) {
                return null;
            }
            passed = true;
        } finally {
            if (!passed) {
                CohortHandoff.reclaimIfUnclaimed(slot); // a lease handed on to the waiters may have nobody left to take it
            }
        }
        boolean handedOver = false;
        try {
            // a lease handed on by the last holder: if the client closes meanwhile, registerHeld below says so and the
            // lease is released like a server grant that arrives during a close
            Grant grant = granter == this.granter ? CohortHandoff.take(slot, options, engine.session().epoch(), engine.clock()) : null;
            if (grant == null) {
                engine.checkOpen();
                grant = granter.await(slot, options, deadline.remainingWait());
            }
            if (grant == null) {
                return null;
            }
            slot.enter(); // the acquisition uses the slot until its last hold is released
            Acquisition acquisition = new Acquisition(slot, grant, options, engine.clock(), engine.events(), engine.lockEvents());
            slot.held(acquisition);
            handedOver = true;
            engine.lockEvents().acquired(acquisition); // before anything can end it, so every ended() has its acquired()
            if (!engine.registerHeld(acquisition, grant)) {
                releaseForClose(acquisition); // the client closed while we acquired: do not leak it
                engine.checkOpen();
            }
            if (grant.handedOn() && slot.revoked(grant.ownerId())) {
                // a force-unlock through this client ended the hold while it was handed on (see EngineLock#forceUnlock)
                engine.losses().lose(acquisition, io.distlock.LeaseLostException.Reason.FORCE_UNLOCKED,
                        "it was force-unlocked through this client", null);
            }
            if (acquisition.state() == Acquisition.State.ACTIVE) {
                engine.watchdog().start(acquisition);
            }
            return acquisition;
        } finally {
            if (!handedOver) {
                slot.gate.release();
            }
        }
    }

    /** Releases an acquisition whose last hold is gone; throws the loss if asked to and it was lost. */
    void release(Acquisition acquisition, boolean reportLoss) {
        LockSlot slot = acquisition.slot;
        engine.watchdog().stop(acquisition);
        if (acquisition.state() == Acquisition.State.ACTIVE && CohortHandoff.park(acquisition, engine.clock()) != null) {
            engine.unregisterHeld(acquisition);
            acquisition.freeSlot();
            if (!slot.gate.hasQueuedThreads()) {
                CohortHandoff.reclaimIfUnclaimed(slot); // every waiter gave up before the gate opened
            }
            return;
        }
        try {
            if (acquisition.state() != Acquisition.State.ACTIVE) {
                return; // lost: let go already where the backend could still hold it (LeaseLosses)
            }
            acquisition.beginRelease();
            OwnerCheck found;
            try {
                CompletableFuture<OwnerCheck> releasing = backend.release(slot.name, acquisition.ownerId);
                passGateEarly(acquisition);
                found = engine.calls().awaitUninterruptibly(releasing, "release", slot.name);
            } catch (RuntimeException e) {
                if (acquisition.state() == Acquisition.State.LOST) {
                    return; // lost meanwhile (e.g. the client closed): report that below
                }
                acquisition.markReleased(); // not confirmed: renewals have stopped, so it expires with its lease
                throw e;
            }
            if (found == OwnerCheck.OWNER) {
                acquisition.markReleased();
            } else {
                engine.losses().found(acquisition, found, "the release");
            }
        } finally {
            engine.unregisterHeld(acquisition);
            acquisition.freeSlot();
            if (reportLoss) {
                LeaseLostException lost = acquisition.lossReport();
                if (lost != null) {
                    throw lost;
                }
            }
        }
    }

    /**
     * Ends {@code acquisition} for its holder but leaves the lock held on the server for {@code holdFor}: renewals stop,
     * one renewal sets the lease to {@code holdFor} (at least the shortest lease), and nothing is released; the server
     * frees the lock when that runs out. Only for a backend whose leases end on the server. Like a release, it lets
     * local waiters try (the server turns them away until then) and takes the acquisition off the client's held list, so
     * closing the client does not release it either.
     *
     * @return whether the server keeps the lock for {@code holdFor}; false if the lease was lost
     */
    boolean expireAfter(Acquisition acquisition, java.time.Duration holdFor) {
        LockSlot slot = acquisition.slot;
        engine.watchdog().stop(acquisition);
        java.time.Duration hold = holdFor.compareTo(LockOptions.MIN_LEASE_TIME) < 0 ? LockOptions.MIN_LEASE_TIME
                : holdFor.compareTo(LockOptions.MAX_LEASE_TIME) > 0 ? LockOptions.MAX_LEASE_TIME : holdFor;
        try {
            if (acquisition.state() != Acquisition.State.ACTIVE) {
                return false;
            }
            acquisition.beginRelease();
            OwnerCheck found;
            try {
                found = engine.calls().awaitUninterruptibly(backend.renew(slot.name, acquisition.ownerId, hold), "renew", slot.name);
            } catch (RuntimeException e) {
                if (acquisition.state() == Acquisition.State.LOST) {
                    return false;
                }
                acquisition.markReleased(); // not confirmed: it expires with its lease, or after holdFor if the server applied it
                throw e;
            }
            if (found == OwnerCheck.OWNER) {
                acquisition.markReleased();
                return true;
            }
            engine.losses().found(acquisition, found, "the last renewal");
            return false;
        } finally {
            engine.unregisterHeld(acquisition);
            acquisition.freeSlot();
        }
    }

    /**
     * Renews {@code acquisition} now for {@code leaseTime} ({@code Lease#renew}); only for one the watchdog does not renew.
     * The local deadline becomes the send time plus {@code leaseTime}, or plus the options' lease if the watchdog's renewal
     * of a short grant (sent with the options' lease) was not confirmed before this one was sent: the server applies the
     * last to arrive, which may be either.
     *
     * @return whether the backend confirmed this owner; false if the lease was no longer held
     */
    boolean renewByHand(Acquisition acquisition, java.time.Duration leaseTime) {
        if (acquisition.options.autoRenew()) {
            throw new IllegalStateException("the lease of lock '" + acquisition.lockName() + "' is renewed by its watchdog every "
                    + acquisition.options.renewInterval() + "; renew(Duration) is for leases taken with autoRenew(false)");
        }
        ReentrantLock stripe = RENEWING_BY_HAND[Math.floorMod(System.identityHashCode(acquisition), RENEWING_BY_HAND.length)];
        stripe.lock(); // one renewal by hand of an acquisition at a time: two of different lengths would race like the below
        try {
            if (acquisition.state() != Acquisition.State.ACTIVE) {
                return false;
            }
            long leaseNanos = leaseTime.toNanos();
            acquisition.renewedByHandNanos = leaseNanos;
            // read before sending: not done yet means that renewal may still reach the server after this one
            boolean overlapped = acquisition.claimFirst && !acquisition.firstRenewalDone;
            long sent = engine.clock().nanoTime();
            OwnerCheck found;
            try {
                found = engine.calls().awaitUninterruptibly(backend.renew(acquisition.lockName(), acquisition.ownerId, leaseTime), "renew",
                        acquisition.lockName());
            } catch (RuntimeException e) {
                if (acquisition.state() == Acquisition.State.LOST) {
                    return false;
                }
                throw e;
            }
            if (found != OwnerCheck.OWNER) {
                engine.losses().found(acquisition, found, "a renewal");
                return false;
            }
            long optionsLease = acquisition.options.leaseTime().toNanos();
            if (!acquisition.confirmRenewalByHand(sent, overlapped ? Math.min(leaseNanos, optionsLease) : leaseNanos)) {
                engine.losses().confirmedTooLate(acquisition); // past its deadline before the answer: it does not come back
                return false;
            }
            engine.watchdog().deadlineMoved(acquisition);
            return acquisition.state() == Acquisition.State.ACTIVE;
        } finally {
            stripe.unlock();
        }
    }

    /**
     * Lock cohorting: when other threads of this client wait for the same lock, open the local gate
     * as soon as the release is sent instead of when it is confirmed. The next thread's acquire then
     * travels right behind the release (on Redis: on the same connection, so it runs after it) and
     * usually wins: one round trip per local handoff instead of two. Safety does not depend on the
     * order; the backend decides. At most {@link #MAX_EARLY_HANDOFFS} in a row, so that waiters in
     * other processes, woken by the release notification, get their turn.
     */
    private static void passGateEarly(Acquisition acquisition) {
        LockSlot slot = acquisition.slot;
        if (slot.space.shared) {
            return; // a shared kind's gate has room for others while this one holds: nobody waits for this release locally
        }
        if (acquisition.cohort) {
            return; // a run of local handoffs ends here: waiters in other processes get their turn
        }
        if (slot.earlyHandoffs < MAX_EARLY_HANDOFFS && slot.gate.hasQueuedThreads()) {
            slot.earlyHandoffs++;
            acquisition.freeSlot();
        } else {
            slot.earlyHandoffs = 0;
        }
    }

    /** Releases an acquisition the caller never got, because the client closed meanwhile; never throws. */
    private void releaseForClose(Acquisition acquisition) {
        engine.watchdog().stop(acquisition);
        acquisition.markReleased();
        try {
            engine.calls().awaitUninterruptibly(acquisition.backend().release(acquisition.lockName(), acquisition.ownerId), "release",
                    acquisition.lockName());
        } catch (RuntimeException e) {
            log.warn("could not release lock '{}' while closing; it expires with its lease", acquisition.lockName(), e);
        } finally {
            engine.unregisterHeld(acquisition);
            acquisition.freeSlot();
        }
    }

    /**
     * Releases every acquisition in {@code closing} at once (they are already marked lost by the close), and awaits
     * {@code parked} (the releases of leases parked for a local handoff) with them, waiting at most about one operation
     * timeout in all, however many there are; never throws.
     */
    static void releaseAllForClose(EngineContext engine, List<Acquisition> closing, List<CompletableFuture<OwnerCheck>> parked) {
        List<CompletableFuture<OwnerCheck>> releases = new ArrayList<>(closing.size() + parked.size());
        releases.addAll(parked);
        for (Acquisition acquisition : closing) {
            try {
                releases.add(acquisition.backend().release(acquisition.lockName(), acquisition.ownerId));
            } catch (RuntimeException e) {
                releases.add(CompletableFuture.failedFuture(e));
            }
        }
        CompletableFuture<?>[] settled = releases.stream().map(f -> f.handle((found, error) -> null)).toArray(CompletableFuture<?>[]::new);
        try {
            engine.calls().awaitUninterruptibly(CompletableFuture.allOf(settled), "release", closing.size() + " locks");
        } catch (RuntimeException timedOut) {
            // reported below with the others that were not confirmed
        }
        long unconfirmed = releases.stream().filter(f -> !f.isDone() || f.isCompletedExceptionally()).count();
        if (unconfirmed > 0) {
            log.warn("closing the client: {} of {} releases were not confirmed by {}; those locks expire with their leases",
                    unconfirmed, releases.size(), engine.backend().describe());
        }
    }
}
