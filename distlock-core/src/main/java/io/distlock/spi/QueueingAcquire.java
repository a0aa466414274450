package io.distlock.spi;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * Capability: the backend keeps a queue of waiters per lock and grants the lock in arrival order
 * (ZooKeeper's ephemeral-sequential nodes, etcd's revisions). The engine joins the queue once per
 * acquisition and waits for its turn, instead of asking again and again.
 *
 * <p>Once a ticket is granted, the lock is held under the ticket's owner id, and the ordinary
 * {@link LockBackend#renew}, {@link LockBackend#release} and {@link LockBackend#forceRelease} apply.
 * A backend implements exactly one of {@code QueueingAcquire} and {@link PollingAcquire}.
 */
public interface QueueingAcquire {

    /**
     * Joins the queue of the lock under {@code ownerId}; the ticket stays queued until granted or left.
     * {@code leaseTime} is the lease the grant will have (session-bound backends may ignore it).
     */
    CompletableFuture<QueueTicket> enqueue(String name, String ownerId, Duration leaseTime);

    /** A place in a lock's queue. */
    interface QueueTicket {

        /**
         * Asks whether this ticket is first in the queue. If it is, the lock is held: returns a grant
         * with the fencing token. If not, returns busy and calls {@code onMaybeTurn} once, later, when
         * the ticket ahead of it leaves (each waiter watches only its predecessor: no herd). Asking
         * again while the same predecessor is still ahead must not add another watch on it: the
         * newest {@code onMaybeTurn} is the one called.
         */
        CompletableFuture<AcquireResult> checkTurn(Runnable onMaybeTurn);

        /** Leaves the queue (used when the caller gives up before its turn) and stops watching. Idempotent. */
        CompletableFuture<Void> leave();
    }
}
