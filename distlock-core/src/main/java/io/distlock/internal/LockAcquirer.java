package io.distlock.internal;

import io.distlock.BackendUnavailableException;
import io.distlock.LeaseLostException;
import io.distlock.LockOptions;
import io.distlock.spi.AcquireResult;
import io.distlock.spi.FairQueueing;
import io.distlock.spi.LockBackend;
import io.distlock.spi.ReleaseSubscription;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Acquires and releases backend locks for one client: local queueing, waiting for release
 * notifications, deadlines, interruption and cancellation safety.
 */
final class LockAcquirer {
    /*
     * Acquire: pass the slot's fair gate (local FIFO queue, no backend traffic), then ask the backend.
     * If busy, subscribe to release notifications once, ask again (a release may have happened before
     * the subscription), and from then on sleep until a notification, the holder's lease end, the
     * fallback poll or the caller's deadline, whichever is first. The generation counter read before
     * each request makes a notification that arrives during the request count.
     *
     * Cancellation safety: if the caller stops waiting for a request's answer (interrupt, timeout,
     * error), the request may still have been granted. We release under that attempt's owner id as
     * soon as the answer (or failure) is known; compare-and-release makes this safe even when the
     * request never ran.
     */
    private static final Logger log = LoggerFactory.getLogger(LockAcquirer.class);
    private static final long FOREVER = -1;
    /** How many local handoffs in a row may skip waiting for the release's confirmation. */
    static final int MAX_EARLY_HANDOFFS = 4;

    private final EngineLockClient client;
    private final LockBackend backend;
    private final BackendCalls calls;
    private final long fallbackPollNanos;

    LockAcquirer(EngineLockClient client, long fallbackPollNanos) {
        this.client = client;
        this.backend = client.backend();
        this.calls = client.calls();
        this.fallbackPollNanos = fallbackPollNanos;
    }

    /** Returns a new acquisition held by the calling thread, or null if the wait ran out. */
    @Nullable Acquisition acquire(LockSlot slot, LockOptions options, long waitNanos) throws InterruptedException {
        long start = System.nanoTime();
        if (waitNanos == FOREVER) {
            slot.gate.acquire();
        } else if (!slot.gate.tryAcquire(waitNanos, TimeUnit.NANOSECONDS)) {
            return null;
        }
        boolean handedOver = false;
        try {
            long left = waitNanos == FOREVER ? FOREVER : Math.max(0, waitNanos - (System.nanoTime() - start));
            Acquisition acquisition = acquireFromBackend(slot, options, left);
            if (acquisition == null) {
                return null;
            }
            slot.holder = acquisition;
            handedOver = true;
            if (!client.registerHeld(acquisition)) {
                releaseForClose(acquisition); // the client closed while we acquired: do not leak it
                client.checkOpen();
            }
            client.watchdog().start(acquisition);
            return acquisition;
        } finally {
            if (!handedOver) {
                slot.gate.release();
            }
        }
    }

    private @Nullable Acquisition acquireFromBackend(LockSlot slot, LockOptions options, long waitNanos)
            throws InterruptedException {
        if (backend instanceof FairQueueing fair) {
            return acquireInQueue(fair, slot, options, waitNanos);
        }
        long deadline = System.nanoTime() + waitNanos;
        String ownerId = client.ownerIds().next();
        boolean watching = false;
        try {
            while (true) {
                client.checkOpen();
                long generation = slot.signal.generation();
                long sent = System.nanoTime();
                CompletableFuture<AcquireResult> request = backend.tryAcquire(slot.name, ownerId, options.leaseTime());
                AcquireResult result;
                try {
                    result = calls.await(request, "acquire", slot.name);
                } catch (InterruptedException | RuntimeException e) {
                    releaseWhenKnown(slot.name, ownerId, request);
                    throw e;
                }
                if (result.granted()) {
                    return new Acquisition(slot, ownerId, result.fencingToken(), options, sent, client.events());
                }
                long left = waitNanos == FOREVER ? Long.MAX_VALUE : deadline - System.nanoTime();
                if (left <= 0) {
                    return null;
                }
                if (!watching) {
                    watching = true;
                    startWatching(slot);
                    continue; // ask again: the release may have come before notifications flowed
                }
                long holderLeft = result.holderRemaining().toNanos();
                long sleep = Math.min(left, fallbackPollNanos);
                if (holderLeft > 0) {
                    sleep = Math.min(sleep, holderLeft + TimeUnit.MILLISECONDS.toNanos(1));
                }
                slot.signal.awaitChange(generation, sleep);
            }
        } finally {
            if (watching) {
                slot.signal.release();
            }
        }
    }

    /**
     * The fair path: join the backend's queue once, then wait for our turn, woken when the ticket
     * ahead of ours leaves. Giving up (deadline, interrupt, error) leaves the queue, also when the
     * enqueue itself is still in flight.
     */
    private @Nullable Acquisition acquireInQueue(FairQueueing fair, LockSlot slot, LockOptions options, long waitNanos)
            throws InterruptedException {
        long deadline = System.nanoTime() + waitNanos;
        String ownerId = client.ownerIds().next();
        long sent = System.nanoTime();
        CompletableFuture<FairQueueing.QueueTicket> joining = fair.enqueue(slot.name, ownerId);
        FairQueueing.QueueTicket ticket;
        try {
            ticket = calls.await(joining, "acquire", slot.name);
        } catch (InterruptedException | RuntimeException e) {
            joining.thenAccept(FairQueueing.QueueTicket::leave);
            throw e;
        }
        boolean granted = false;
        try {
            while (true) {
                client.checkOpen();
                CountDownLatch turn = new CountDownLatch(1);
                AcquireResult result = calls.await(ticket.checkTurn(turn::countDown), "acquire", slot.name);
                if (result.granted()) {
                    granted = true;
                    return new Acquisition(slot, ownerId, result.fencingToken(), options, sent, client.events());
                }
                long left = waitNanos == FOREVER ? Long.MAX_VALUE : deadline - System.nanoTime();
                if (left <= 0) {
                    return null;
                }
                turn.await(Math.min(left, fallbackPollNanos), TimeUnit.NANOSECONDS);
                sent = System.nanoTime();
            }
        } finally {
            if (!granted) {
                leaveQuietly(ticket, slot.name);
            }
        }
    }

    /** Leaves the queue and waits for it, so that nothing of ours is queued when the caller gets control back. */
    private void leaveQuietly(FairQueueing.QueueTicket ticket, String name) {
        try {
            calls.awaitUninterruptibly(ticket.leave(), "leave", name);
        } catch (RuntimeException e) {
            log.debug("leaving the queue of lock '{}' failed; the backend retries it", name, e);
        }
    }

    private void startWatching(LockSlot slot) throws InterruptedException {
        CompletableFuture<ReleaseSubscription> subscription = slot.signal.retain();
        try {
            calls.await(subscription, "subscribe", slot.name);
        } catch (RuntimeException e) {
            // Without notifications we still make progress by polling; the next request reports an outage.
            log.debug("release notifications for lock '{}' unavailable, polling instead", slot.name, e);
        }
    }

    private void releaseWhenKnown(String name, String ownerId, CompletableFuture<AcquireResult> request) {
        request.whenComplete((result, error) -> {
            if (error == null && (result == null || !result.granted())) {
                return;
            }
            backend.release(name, ownerId).whenComplete((released, releaseError) -> {
                if (releaseError != null) {
                    log.debug("could not release abandoned attempt on lock '{}'; it expires with its lease", name, releaseError);
                }
            });
        });
    }

    /** Releases an acquisition whose last hold is gone; reports a loss if asked to. */
    void release(Acquisition acquisition, boolean reportLoss) {
        LockSlot slot = acquisition.slot;
        client.watchdog().stop(acquisition);
        boolean released;
        try {
            if (acquisition.state() == Acquisition.State.RELEASED) {
                return; // already released when the client closed
            }
            try {
                CompletableFuture<Boolean> releasing = backend.release(slot.name, acquisition.ownerId);
                passGateEarly(acquisition);
                released = calls.awaitUninterruptibly(releasing, "release", slot.name);
            } catch (BackendUnavailableException e) {
                if (acquisition.state() == Acquisition.State.LOST) {
                    throwLoss(acquisition, reportLoss);
                    return;
                }
                acquisition.markReleased();
                throw e;
            }
        } finally {
            client.unregisterHeld(acquisition);
            acquisition.freeSlot();
        }
        if (!released) {
            acquisition.markLost("the release found the lock no longer held under this owner "
                    + "(it expired or was taken over or force-unlocked)", null);
        } else {
            acquisition.markReleased();
        }
        throwLoss(acquisition, reportLoss);
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
        if (slot.earlyHandoffs < MAX_EARLY_HANDOFFS && slot.gate.hasQueuedThreads()) {
            slot.earlyHandoffs++;
            acquisition.freeSlot();
        } else {
            slot.earlyHandoffs = 0;
        }
    }

    private static void throwLoss(Acquisition acquisition, boolean reportLoss) {
        LeaseLostException lost = acquisition.lossReport();
        if (lost != null && reportLoss) {
            throw lost;
        }
    }

    /** Releases an acquisition because the client is closing; never throws. */
    void releaseForClose(Acquisition acquisition) {
        client.watchdog().stop(acquisition);
        try {
            if (acquisition.state() == Acquisition.State.ACTIVE) {
                calls.awaitUninterruptibly(backend.release(acquisition.lockName(), acquisition.ownerId), "release", acquisition.lockName());
            }
        } catch (RuntimeException e) {
            log.warn("could not release lock '{}' while closing; it expires with its lease", acquisition.lockName(), e);
        } finally {
            acquisition.markReleased();
            client.unregisterHeld(acquisition);
            acquisition.freeSlot();
        }
    }
}
