package io.distlock.internal;

import io.distlock.LockOptions;
import io.distlock.spi.AcquireResult;
import io.distlock.spi.QueueingAcquire;
import io.distlock.spi.QueueingAcquire.QueueTicket;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Grants from a {@link QueueingAcquire} backend: join the lock's queue once, then wait for the turn. */
final class QueueGranter implements Granter {
    /*
     * The ticket's turn callback fires the slot's signal, so the waiter parks where every waiter parks
     * (and wakes when the client closes). The generation read before each turn check makes a turn
     * that comes during the check count. Giving up (deadline, interrupt, error, close) leaves the queue
     * and waits for that, also when the enqueue itself is still in flight: when the caller gets control
     * back, nothing of its is queued.
     *
     * A ticket lives on the backend session it joined in (SessionEvents): when that session is lost, the
     * ticket's place is gone with it, and a grant read for it may belong to the dead session. So the wait
     * is bounded by the session: the session's loss wakes the waiter (SessionState), and a ticket whose
     * session epoch has moved on since its join is never granted from - not a turn it finds, not an error
     * it gets (its key vanished) - but left, and the waiter joins again, on the new session, for what is
     * left of its wait. A loss that comes after the last check, while the grant is being registered, is
     * still caught there (SessionState.register loses it at once, SESSION_LOST).
     */
    private static final Logger log = LoggerFactory.getLogger(QueueGranter.class);
    private static final long ABANDON_WAIT_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(1);

    private final EngineContext engine;
    private final QueueingAcquire queue;
    private final long fallbackPollNanos;

    QueueGranter(EngineContext engine, QueueingAcquire queue) {
        this.engine = engine;
        this.queue = queue;
        this.fallbackPollNanos = engine.fallbackPollNanos();
    }

    @Override
    public @Nullable Grant await(LockSlot slot, LockOptions options, long waitNanos) throws InterruptedException {
        WaitDeadline deadline = WaitDeadline.start(engine.clock(), waitNanos);
        SessionState session = engine.session();
        Runnable wakeUp = slot.signal::fire;
        session.wakeOnLoss(wakeUp);
        try {
            while (true) {
                try {
                    return awaitTurn(slot, options, deadline, session.epoch());
                } catch (SessionEnded ended) {
                    if (deadline.left() <= 0) {
                        if (ended.getCause() instanceof RuntimeException failure) {
                            throw failure; // what the last try ran into (an outage), not a quiet timeout
                        }
                        return null;
                    }
                    log.debug("the session of the queue ticket for lock '{}' ended ({}); joining again", slot.name, session.lastLoss());
                }
            }
        } finally {
            session.stopWakingOnLoss(wakeUp);
        }
    }

    /**
     * Joins the queue once, in session {@code epoch}, and waits for the turn: returns the grant, or null if the
     * wait ran out.
     *
     * @throws SessionEnded if the session ended under the ticket (which is then left)
     */
    private @Nullable Grant awaitTurn(LockSlot slot, LockOptions options, WaitDeadline deadline, long epoch) throws InterruptedException {
        EngineClock clock = engine.clock();
        SessionState session = engine.session();
        String ownerId = engine.ownerIds().next();
        // a backend may grant at the join itself (its lease then runs from the join): the first turn check's
        // grant counts from when the join was sent, however late that check runs (a pause in between)
        long joinSent = clock.nanoTime();
        CompletableFuture<QueueTicket> joining = queue.enqueue(slot.name, ownerId, options.leaseTime());
        QueueTicket ticket;
        try {
            ticket = engine.calls().await(joining, "acquire", slot.name);
        } catch (InterruptedException e) {
            abandon(joining, slot.name);
            throw e;
        } catch (RuntimeException e) {
            joining.thenAccept(QueueTicket::leave); // timed out or failed: leave if it ever joins
            if (session.epoch() != epoch) {
                throw new SessionEnded(engine.closedOr(e)); // e.g. the join found the session's lease unknown to the server
            }
            throw engine.closedOr(e);
        }
        boolean granted = false;
        boolean first = true;
        // a grant the backend made on our behalf and told us of came after our last check that found us queued
        long lastQueuedSent = joinSent;
        try {
            while (true) {
                engine.checkOpen();
                if (session.epoch() != epoch) {
                    throw new SessionEnded(null);
                }
                long generation = slot.signal.generation();
                long sent = first ? joinSent : clock.nanoTime();
                first = false;
                AcquireResult result;
                try {
                    result = engine.calls().await(ticket.checkTurn(slot.signal::fire), "acquire", slot.name);
                } catch (RuntimeException e) {
                    if (session.epoch() != epoch) {
                        throw new SessionEnded(engine.closedOr(e)); // the ticket vanished with its session
                    }
                    throw engine.closedOr(e);
                }
                if (session.epoch() != epoch) {
                    throw new SessionEnded(null); // a turn read before the loss: the ticket may be gone with the session
                }
                if (result.wasNotified()) {
                    long lease = Math.min(result.notifiedLease().toNanos(), options.leaseTime().toNanos());
                    if (lastQueuedSent + lease / 2 - clock.nanoTime() > 0) {
                        granted = true;
                        return new Grant(ownerId, result.fencingToken(), lastQueuedSent, epoch, lease);
                    }
                    // most of the short lease has passed since our last queued call (a long fallback poll, a pause):
                    // claim the grant with a turn check at once rather than hand out a lease that is nearly over
                    continue;
                }
                if (result.granted()) {
                    granted = true;
                    return new Grant(ownerId, result.fencingToken(), sent, epoch, options.leaseTime().toNanos());
                }
                lastQueuedSent = sent;
                long left = deadline.left();
                if (left <= 0) {
                    return null;
                }
                long sleep = Math.min(left, fallbackPollNanos);
                long queueMoves = result.holderRemaining().toNanos();
                if (queueMoves > 0) {
                    // a holder that dies publishes nothing: check again when its lease (or a waiter's heartbeat) runs out
                    sleep = Math.min(sleep, queueMoves + java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(1));
                }
                slot.signal.awaitChange(generation, sleep);
            }
        } finally {
            if (!granted) {
                leave(ticket, slot.name);
            }
        }
    }

    /**
     * Gives up an enqueue whose caller was interrupted: waits briefly (at most {@link #ABANDON_WAIT_NANOS})
     * for it to complete and leaves the queue, so that normally nothing of ours is queued when the caller
     * gets control back; an enqueue stuck on a slow server leaves whenever it completes, and the interrupt
     * is not held up for it.
     */
    private void abandon(CompletableFuture<QueueTicket> joining, String name) {
        QueueTicket ticket = engine.calls().awaitQuietly(joining, ABANDON_WAIT_NANOS);
        if (ticket != null) {
            leave(ticket, name);
        } else {
            joining.thenAccept(QueueTicket::leave);
        }
        Thread.interrupted(); // the caller gets an InterruptedException instead of the flag
    }

    /** Leaves the queue and waits for it, so that nothing of ours is queued when the caller gets control back. */
    private void leave(QueueTicket ticket, String name) {
        try {
            engine.calls().awaitUninterruptibly(ticket.leave(), "leave", name);
        } catch (RuntimeException e) {
            log.warn("leaving the queue of lock '{}' was not confirmed; the backend keeps trying", name, e);
        }
    }

    /** The session ended under a queue ticket: the ticket is left; the cause is the error the wait ran into, if any. */
    private static final class SessionEnded extends RuntimeException {
        SessionEnded(@Nullable RuntimeException cause) {
            super("the session of the queue ticket ended", cause, false, false);
        }
    }
}
