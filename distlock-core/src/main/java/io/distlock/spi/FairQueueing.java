package io.distlock.spi;

import java.util.concurrent.CompletableFuture;

/**
 * Capability: the backend keeps a queue of waiters per lock and grants the lock in arrival order
 * (ZooKeeper's ephemeral-sequential nodes). The engine then joins the queue once per acquisition
 * and waits for its turn, instead of retrying {@link LockBackend#tryAcquire}.
 *
 * <p>Once a ticket is granted, the lock is held under the ticket's owner id, and the ordinary
 * {@link LockBackend#renew}, {@link LockBackend#release} and {@link LockBackend#forceRelease} apply.
 */
public interface FairQueueing {

    /** Joins the queue of the lock under {@code ownerId}; the ticket stays queued until granted or left. */
    CompletableFuture<QueueTicket> enqueue(String name, String ownerId);

    /** A place in a lock's queue. */
    interface QueueTicket {

        /**
         * Asks whether this ticket is first in the queue. If it is, the lock is held: returns a grant
         * with the fencing token. If not, returns busy and calls {@code onMaybeTurn} once, later, when
         * the ticket ahead of it leaves (each waiter watches only its predecessor: no herd).
         */
        CompletableFuture<AcquireResult> checkTurn(Runnable onMaybeTurn);

        /** Leaves the queue (used when the caller gives up before its turn). Idempotent. */
        CompletableFuture<Void> leave();
    }
}
