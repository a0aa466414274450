package io.distlock.redis;

import io.distlock.spi.AcquireResult;
import io.distlock.spi.LockBackend;
import io.distlock.spi.OwnerCheck;
import io.distlock.spi.QueueingAcquire;
import io.distlock.spi.ReleaseSubscription;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;
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
        RedisQueueTicket ticket = new RedisQueueTicket(this, name, ownerId, leaseTime);
        // where the grant channel is subscribed already (it lingers after a wait), watch it before joining: a
        // grant published after the join then reaches the ticket, and its first turn check needs no call
        boolean watchedBeforeJoin = queues.watchGrantsIfSubscribed(kind, name, ownerId, ticket::granted).map(ticket::watching).isPresent();
        CompletableFuture<RedisQueues.Turn> joining = queues.turn(kind, cap, "acquire", name, ownerId, mode, millis(leaseTime));
        joining.whenComplete((joined, error) -> {
            if (error != null) {
                ticket.stopWatching();
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
            ticket.joined(joined, watchedBeforeJoin);
            if (joined.granted() || watchedBeforeJoin) {
                if (joined.granted()) {
                    ticket.stopWatching();
                }
                return CompletableFuture.completedFuture(ticket);
            }
            // subscribed after the join: the first turn check runs, so a grant published before the
            // subscription counted is seen by that check
            return queues.watchGrants(kind, name, ownerId, ticket::granted).handle((subscription, error) -> {
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
    CompletableFuture<RedisQueues.Turn> check(String name, String ownerId, Duration leaseTime) {
        return queues.turn(kind, cap, "check", name, ownerId, mode, millis(leaseTime));
    }

    /** Leaves the queue, or gives up a grant that came meanwhile. */
    CompletableFuture<Void> leave(String name, String ownerId) {
        return queues.number(kind, cap, "leave", "leave", name, ownerId, mode).thenApply(left -> null);
    }

    /** A lease ends on the server when the time it was last renewed for runs out. */
    @Override
    public boolean leasesEndOnTheServer() {
        return true;
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
        // the request id lets a replay of this call (after a reconnect) find its own answer instead of ending later holders
        return queues.number(kind, cap, "force", "forceUnlock", name, mode, UUID.randomUUID().toString()).thenApply(ended -> ended > 0);
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

    /**
     * A waiter's place in a queued kind's queue. A grant message naming it is kept, and the next turn
     * check answers with it without a call (a {@linkplain AcquireResult#notified notified} grant), if its
     * token is larger than the last token seen by the ticket's last call that answered "queued": then the
     * grant was made after that call ran, which the engine counts the short lease from. An older message
     * (delivered late, about a grant that has since run out) fails that test and is ignored.
     */
    static final class RedisQueueTicket implements QueueTicket {
        private final RedisQueueStorage storage;
        private final String name;
        private final String ownerId;
        private final String grantPrefix;
        private final Duration leaseTime;
        private volatile RedisQueues.@Nullable Turn joined;
        /** The join answered "queued" with the grant channel watched before it: no turn check is due yet. */
        private volatile boolean queuedWhileWatched;
        /** The last token the lock had issued when a call of this ticket last answered "queued". */
        private volatile long queuedAtToken = Long.MAX_VALUE;
        private volatile @Nullable Notified notified;
        private volatile @Nullable Runnable onTurn;
        private volatile @Nullable ReleaseSubscription subscription;

        private record Notified(long token, long leaseMillis) {}

        RedisQueueTicket(RedisQueueStorage storage, String name, String ownerId, Duration leaseTime) {
            this.storage = storage;
            this.name = name;
            this.ownerId = ownerId;
            this.grantPrefix = ownerId + ":";
            this.leaseTime = leaseTime;
        }

        /** Records the join's answer; {@code watchedBeforeJoin}: grant messages reached the ticket before the join was sent. */
        void joined(RedisQueues.Turn turn, boolean watchedBeforeJoin) {
            joined = turn;
            if (!turn.granted()) {
                queuedAtToken = turn.token();
                queuedWhileWatched = watchedBeforeJoin;
            }
        }

        /** Returns true (for use in an Optional's map). */
        boolean watching(ReleaseSubscription subscription) {
            this.subscription = subscription;
            return true;
        }

        /**
         * A grant message: {@code owner:token:leaseMs} entries separated by commas. Wakes the waiter only if
         * it names this ticket (a grant to another waiter changes nothing for this one), or if it cannot be
         * read (then the turn check finds out).
         */
        void granted(String message) {
            int at = message.indexOf(grantPrefix);
            while (at > 0 && message.charAt(at - 1) != ',') {
                at = message.indexOf(grantPrefix, at + 1);
            }
            boolean wake = at >= 0;
            if (at >= 0) {
                int end = message.indexOf(',', at);
                String[] parts = message.substring(at, end < 0 ? message.length() : end).split(":");
                try {
                    notified = new Notified(Long.parseLong(parts[1]), Long.parseLong(parts[2]));
                } catch (RuntimeException e) {
                    log.debug("unreadable grant message for '{}': {}", name, message);
                }
            } else if (message.indexOf(':') < 0) {
                wake = true; // not in this format: a turn check tells
            }
            Runnable callback = onTurn;
            if (wake && callback != null) {
                callback.run();
            }
        }

        @Override
        public CompletableFuture<AcquireResult> checkTurn(Runnable onMaybeTurn) {
            onTurn = onMaybeTurn;
            RedisQueues.Turn atJoin = joined;
            joined = null;
            if (atJoin != null && atJoin.granted()) {
                return CompletableFuture.completedFuture(atJoin.result()); // the join itself was granted, its lease runs from then
            }
            Notified told = notified;
            notified = null;
            if (told != null && told.token() > queuedAtToken && told.leaseMillis() > 0) {
                queuedWhileWatched = false; // asked again after this (the engine found too little of the lease left): a real check
                stopWatching();
                return CompletableFuture.completedFuture(AcquireResult.notified(told.token(), Duration.ofMillis(told.leaseMillis())));
            }
            if (queuedWhileWatched && atJoin != null) {
                // queued by the join, which ran after the channel was watched: any grant since then is published to us;
                // but a holder that dies publishes nothing, so the join's answer says when to look again (issue 28, 6)
                queuedWhileWatched = false;
                return CompletableFuture.completedFuture(atJoin.result());
            }
            return storage.check(name, ownerId, leaseTime).thenApply(turn -> {
                if (turn.granted()) {
                    stopWatching();
                } else {
                    queuedAtToken = turn.token();
                }
                return turn.result();
            });
        }

        @Override
        public CompletableFuture<Void> leave() {
            onTurn = null;
            stopWatching();
            return storage.leave(name, ownerId);
        }

        void stopWatching() {
            ReleaseSubscription current = subscription;
            subscription = null;
            if (current != null) {
                current.close();
            }
        }
    }
}
