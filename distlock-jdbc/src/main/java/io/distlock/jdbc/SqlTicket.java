package io.distlock.jdbc;

import io.distlock.spi.AcquireResult;
import io.distlock.spi.QueueingAcquire.QueueTicket;
import io.distlock.spi.ReleaseSubscription;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/** A waiter's row in a SQL queue (see {@link SqlQueue}), and on PostgreSQL its subscription to the name's notifications. */
final class SqlTicket implements QueueTicket {
    private static final long FIRST_BACKOFF_MILLIS = 5;

    private final SqlQueue queue;
    private final String name;
    private final String ownerId;
    private final long leaseMillis;
    private final AtomicBoolean left = new AtomicBoolean();
    private final AtomicBoolean stopped = new AtomicBoolean();
    private volatile long ticket;
    /** The token of a join that held at once, until the first check hands it out; else 0. */
    private volatile long heldAtJoin;
    private volatile @Nullable Runnable onTurn;
    private volatile @Nullable ReleaseSubscription subscription;
    private volatile long backoffMillis = FIRST_BACKOFF_MILLIS;

    SqlTicket(SqlQueue queue, String name, String ownerId, long leaseMillis) {
        this.queue = queue;
        this.name = name;
        this.ownerId = ownerId;
        this.leaseMillis = leaseMillis;
    }

    void joined(SqlQueue.Joined joined) {
        ticket = joined.ticket();
        heldAtJoin = joined.token();
    }

    /** The subscription to the name's notifications, in effect now (it may come after the grant, or after leaving). */
    void listening(ReleaseSubscription running) {
        subscription = running;
        if (stopped.get()) {
            stopListening();
        }
    }

    /** A notification of the name: the queue moved. */
    void maybeTurn() {
        Runnable callback = onTurn;
        if (callback != null) {
            callback.run();
        }
    }

    void stopListening() {
        stopped.set(true);
        ReleaseSubscription running = subscription;
        subscription = null;
        if (running != null) {
            running.close();
        }
    }

    @Override
    public CompletableFuture<AcquireResult> checkTurn(Runnable onMaybeTurn) {
        onTurn = onMaybeTurn;
        long token = heldAtJoin;
        if (token > 0) {
            heldAtJoin = 0;
            stopListening();
            return CompletableFuture.completedFuture(AcquireResult.granted(token));
        }
        return queue.connections().submit("acquire", name, connection -> {
            SqlQueue.Turn turn = queue.checkTurn(connection, name, ticket, ownerId, leaseMillis);
            if (turn.token() < 0) {
                if (left.get()) {
                    return AcquireResult.busy(Duration.ofMillis(1)); // our row went with the leave: nobody waits for this answer
                }
                // our row died (paused past its heartbeat, or deleted): join again, at the tail
                queue.deleteOwner(connection, name, ownerId);
                SqlQueue.Joined again = queue.join(connection, name, ownerId, 0, leaseMillis, queue.rule().role);
                if (left.get()) {
                    // the waiter left while we joined again: its delete may have run before our join committed, and a row
                    // nobody refreshes would stand in the queue (or hold the lock) for a whole lease. A leave that sets the
                    // flag after this read sends its delete after our commit, so one of the two deletes our row
                    queue.deleteOwner(connection, name, ownerId);
                    return AcquireResult.busy(Duration.ofMillis(1));
                }
                ticket = again.ticket();
                turn = new SqlQueue.Turn(again.token(), 0);
            }
            if (turn.token() > 0) {
                stopListening();
                return AcquireResult.granted(turn.token());
            }
            long wait = Math.max(1, leaseMillis / 3); // the heartbeat: our row must be refreshed well within one lease
            if (!queue.listens()) {
                long backoff = backoffMillis;
                backoffMillis = Math.min(backoff * 2, Math.max(FIRST_BACKOFF_MILLIS, queue.releasePoll().toMillis()));
                wait = Math.min(wait, backoff);
            }
            if (turn.millisAhead() > 0) {
                wait = Math.min(wait, turn.millisAhead() + 1); // a row ahead of us runs out then (a dead waiter or holder)
            }
            return AcquireResult.busy(Duration.ofMillis(wait));
        }, (connection, late) -> {
            if (late.granted()) {
                queue.deleteOwner(connection, name, ownerId); // the caller gave up before this grant arrived
            }
        });
    }

    @Override
    public CompletableFuture<Void> leave() {
        if (!left.compareAndSet(false, true)) {
            return CompletableFuture.completedFuture(null);
        }
        onTurn = null;
        stopListening();
        // if this fails, the row dies with its heartbeat within one lease
        return queue.connections().submit("leave", name, connection -> queue.deleteOwner(connection, name, ownerId)).thenAccept(deleted -> { });
    }
}
