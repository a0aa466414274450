package io.distlock.internal;

import io.distlock.internal.MemoryStore.Op;
import io.distlock.internal.MemoryStore.Ticket;
import io.distlock.spi.AcquireResult;
import io.distlock.spi.LockBackend;
import io.distlock.spi.OwnerCheck;
import io.distlock.spi.QueueingAcquire;
import io.distlock.spi.SessionEvents;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;

/**
 * One client's view of a {@link MemoryStore} that acquires by queueing and binds its locks to a
 * session, as the ZooKeeper backend does: tickets live until released, left, or the session ends.
 */
public final class QueueMemoryBackend implements LockBackend, QueueingAcquire, SessionEvents {
    private final MemoryStore store;
    private final Duration operationTimeout;
    private final List<SessionListener> sessionListeners = new CopyOnWriteArrayList<>();
    private final Set<String> released = ConcurrentHashMap.newKeySet();
    private volatile @Nullable Duration nextGrantLease;

    QueueMemoryBackend(MemoryStore store, Duration operationTimeout) {
        this.store = store;
        this.operationTimeout = operationTimeout;
    }

    /** Makes the next turn granted a short one ({@link AcquireResult#notified}), as if granted on the waiter's behalf. */
    public void grantNextFor(Duration lease) {
        this.nextGrantLease = lease;
    }

    @Override
    public String describe() {
        return "memory-queue";
    }

    @Override
    public Duration operationTimeout() {
        return operationTimeout;
    }

    @Override
    public CompletableFuture<QueueTicket> enqueue(String name, String ownerId, Duration leaseTime) {
        return store.run(Op.ENQUEUE, name, ownerId, () -> {
            Ticket ticket = new Ticket(ownerId, store.nextToken(), this);
            store.queue(name).addLast(ticket);
            return new MemoryTicket(name, ticket);
        });
    }

    @Override
    public CompletableFuture<OwnerCheck> renew(String name, String ownerId, Duration leaseTime) {
        return store.run(Op.RENEW, name, ownerId, () -> find(name, ownerId) != null ? OwnerCheck.OWNER : OwnerCheck.MISSING);
    }

    @Override
    public CompletableFuture<OwnerCheck> release(String name, String ownerId) {
        return store.run(Op.RELEASE, name, ownerId, () -> {
            if (remove(name, find(name, ownerId))) {
                released.add(ownerId);
                return OwnerCheck.OWNER;
            }
            return released.contains(ownerId) ? OwnerCheck.OWNER : OwnerCheck.MISSING;
        });
    }

    @Override
    public CompletableFuture<Boolean> forceRelease(String name) {
        return store.run(Op.FORCE_RELEASE, name, "-", () -> {
            Deque<Ticket> queue = store.queue(name);
            return !queue.isEmpty() && remove(name, queue.peekFirst());
        });
    }

    @Override
    public CompletableFuture<Boolean> isLocked(String name) {
        return store.run(Op.IS_LOCKED, name, "-", () -> !store.queue(name).isEmpty());
    }

    @Override
    public void addSessionListener(SessionListener listener) {
        sessionListeners.add(listener);
    }

    /** Ends this client's session: its tickets vanish (waking their successors), then the engine is told. */
    public void expireSession() {
        store.run(Op.LEAVE, "(session)", "-", () -> {
            for (String name : List.copyOf(store.queues().keySet())) {
                for (Ticket ticket : List.copyOf(store.queue(name))) {
                    if (ticket.client == this) {
                        remove(name, ticket);
                    }
                }
            }
            return true;
        }).join();
        sessionListeners.forEach(listener -> listener.lost("the memory session expired"));
    }

    /** Reports the connection in doubt. */
    public void suspendSession() {
        sessionListeners.forEach(SessionListener::suspended);
    }

    /** Reports the same session back. */
    public void reconnectSession() {
        sessionListeners.forEach(SessionListener::reconnected);
    }

    /** Returns how many tickets this client has queued on {@code name} whose turn callback is set. */
    public int watchedTickets(String name) {
        return (int) store.queue(name).stream().filter(t -> t.client == this && t.onTurn != null).count();
    }

    private @Nullable Ticket find(String name, String ownerId) {
        for (Ticket ticket : store.queue(name)) {
            if (ticket.owner.equals(ownerId)) {
                return ticket;
            }
        }
        return null;
    }

    /** Removes a ticket and wakes the one behind it; call under the store's lock. */
    private boolean remove(String name, @Nullable Ticket ticket) {
        if (ticket == null) {
            return false;
        }
        List<Ticket> queue = new ArrayList<>(store.queue(name));
        int position = queue.indexOf(ticket);
        if (position < 0) {
            return false;
        }
        store.queue(name).remove(ticket);
        if (position + 1 < queue.size()) {
            Runnable next = queue.get(position + 1).onTurn;
            if (next != null) {
                queue.get(position + 1).onTurn = null;
                next.run();
            }
        }
        return true;
    }

    @Override
    public void close() {
        // the store outlives its clients
    }

    private final class MemoryTicket implements QueueTicket {
        private final String name;
        private final Ticket ticket;

        MemoryTicket(String name, Ticket ticket) {
            this.name = name;
            this.ticket = ticket;
        }

        @Override
        public CompletableFuture<AcquireResult> checkTurn(Runnable onMaybeTurn) {
            return store.run(Op.CHECK_TURN, name, ticket.owner, () -> {
                Deque<Ticket> queue = store.queue(name);
                if (!queue.contains(ticket)) {
                    throw MemoryStore.notQueued(name);
                }
                if (queue.peekFirst() == ticket) {
                    ticket.onTurn = null;
                    Duration shortLease = nextGrantLease;
                    nextGrantLease = null;
                    return shortLease == null ? AcquireResult.granted(ticket.token) : AcquireResult.notified(ticket.token, shortLease);
                }
                ticket.onTurn = onMaybeTurn; // one watch per ticket: the newest callback replaces the last
                return AcquireResult.busy(Duration.ZERO);
            });
        }

        @Override
        public CompletableFuture<Void> leave() {
            return store.run(Op.LEAVE, name, ticket.owner, () -> {
                ticket.onTurn = null;
                remove(name, ticket);
                return null;
            });
        }
    }
}
