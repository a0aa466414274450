package io.distlock.redis;

import io.distlock.spi.AcquireResult;
import io.distlock.spi.LockBackend;
import io.distlock.spi.OwnerCheck;
import io.distlock.spi.QueueingAcquire;
import io.distlock.spi.ReleaseSubscription;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One queued kind on Redis, seen from one side: fair locks ('w' in the {@code fair} keys), the readers
 * ('r') or the writer ('w') of read-write locks ({@code rw} keys), or a semaphore's permits ('s' in the
 * {@code sem} keys, with its number of permits). The queue and the grants are {@code queue.lua}'s.
 */
final class RedisQueueStorage implements LockBackend, QueueingAcquire {
    /*
     * Join: one script call; granted at once when nobody is queued and the mode may be granted, else
     * queued at the tail. A queued ticket then subscribes to the lock's grant channel before the engine's
     * first turn check, so a grant published after the join is either seen by that check or delivered.
     * A turn check is one script call that also refreshes the waiter's heartbeat and, once the waiter has
     * been granted (by a release, on its behalf), claims the full lease from the time the check was sent.
     * A ticket that gives up leaves (passing on a grant it got meanwhile); if the leave is not answered,
     * the heartbeat window drops it from the queue, so no waiter blocks a lock for longer than that.
     */
    private static final Logger log = LoggerFactory.getLogger(RedisQueueStorage.class);
    static final String FAIR = "fair";
    static final String READ_WRITE = "rw";
    static final String SEMAPHORE = "sem";

    private final RedisQueues queues;
    private final Duration timeout;
    private final String kind;
    private final String mode;
    private final int cap;

    RedisQueueStorage(RedisQueues queues, Duration timeout, String kind, char mode, int cap) {
        this.queues = queues;
        this.timeout = timeout;
        this.kind = kind;
        this.mode = String.valueOf(mode);
        this.cap = cap;
    }

    @Override
    public String describe() {
        return queues.describe();
    }

    @Override
    public Duration operationTimeout() {
        return timeout;
    }

    @Override
    public CompletableFuture<QueueTicket> enqueue(String name, String ownerId, Duration leaseTime) {
        CompletableFuture<AcquireResult> joining = queues.grant(kind, cap, "acquire", name, ownerId, mode, millis(leaseTime));
        joining.whenComplete((joined, error) -> {
            if (error != null) {
                // no answer (a timeout, a dropped connection) does not mean the join did not run: leave under the same
                // owner id, sent after it on the same connection, so a late grant or queue entry does not stay behind
                leave(name, ownerId).whenComplete((left, leaveError) -> {
                    if (leaveError != null) {
                        log.debug("leaving after a failed join of '{}' failed too; its heartbeat or lease ends it", name, leaveError);
                    }
                });
            }
        });
        return joining.thenCompose(joined -> {
            RedisQueueTicket ticket = new RedisQueueTicket(this, name, ownerId, leaseTime, joined);
            if (joined.granted()) {
                return CompletableFuture.completedFuture(ticket);
            }
            return queues.watchGrants(kind, name, ticket::wake).handle((subscription, error) -> {
                if (error != null) {
                    log.debug("grant notifications for '{}' unavailable, the waiter polls instead", name, error);
                } else {
                    ticket.watching(subscription);
                }
                return ticket;
            });
        });
    }

    /** Runs the turn check of a queued ticket: granted (the lease claimed from now), or still queued. */
    CompletableFuture<AcquireResult> check(String name, String ownerId, Duration leaseTime) {
        return queues.grant(kind, cap, "check", name, ownerId, mode, millis(leaseTime));
    }

    /** Leaves the queue, or gives up a grant that came meanwhile. */
    CompletableFuture<Void> leave(String name, String ownerId) {
        return queues.number(kind, cap, "leave", "leave", name, ownerId, mode).thenApply(left -> null);
    }

    @Override
    public CompletableFuture<OwnerCheck> renew(String name, String ownerId, Duration leaseTime) {
        return queues.ownerCheck(kind, cap, "renew", name, ownerId, millis(leaseTime));
    }

    @Override
    public CompletableFuture<OwnerCheck> release(String name, String ownerId) {
        return queues.ownerCheck(kind, cap, "release", name, ownerId);
    }

    @Override
    public CompletableFuture<Boolean> forceRelease(String name) {
        return queues.number(kind, cap, "force", "forceUnlock", name, mode).thenApply(ended -> ended > 0);
    }

    @Override
    public CompletableFuture<Boolean> isLocked(String name) {
        return queues.number(kind, cap, "held", "isLocked", name, mode).thenApply(held -> held == 1L);
    }

    static String millis(Duration duration) {
        return Long.toString(duration.toMillis());
    }

    @Override
    public void close() {
        // the connection is the backend's
    }

    /** A waiter's place in a queued kind's queue. */
    static final class RedisQueueTicket implements QueueTicket {
        private final RedisQueueStorage storage;
        private final String name;
        private final String ownerId;
        private final Duration leaseTime;
        private volatile AcquireResult joined;
        private volatile Runnable onTurn;
        private volatile ReleaseSubscription subscription;

        RedisQueueTicket(RedisQueueStorage storage, String name, String ownerId, Duration leaseTime, AcquireResult joined) {
            this.storage = storage;
            this.name = name;
            this.ownerId = ownerId;
            this.leaseTime = leaseTime;
            this.joined = joined;
        }

        void watching(ReleaseSubscription subscription) {
            this.subscription = subscription;
        }

        void wake() {
            Runnable callback = onTurn;
            if (callback != null) {
                callback.run();
            }
        }

        @Override
        public CompletableFuture<AcquireResult> checkTurn(Runnable onMaybeTurn) {
            onTurn = onMaybeTurn;
            AcquireResult atJoin = joined;
            if (atJoin != null && atJoin.granted()) {
                joined = null;
                return CompletableFuture.completedFuture(atJoin); // the join itself was granted, its lease runs from then
            }
            joined = null;
            return storage.check(name, ownerId, leaseTime).thenApply(result -> {
                if (result.granted()) {
                    stopWatching();
                }
                return result;
            });
        }

        @Override
        public CompletableFuture<Void> leave() {
            onTurn = null;
            stopWatching();
            return storage.leave(name, ownerId);
        }

        private void stopWatching() {
            ReleaseSubscription current = subscription;
            subscription = null;
            if (current != null) {
                current.close();
            }
        }
    }
}
