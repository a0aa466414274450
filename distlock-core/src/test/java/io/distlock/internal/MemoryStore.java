package io.distlock.internal;

import io.distlock.BackendUnavailableException;
import io.distlock.LockException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * An in-memory lock server for engine tests: what Redis (leases, tombstones, release notifications)
 * and ZooKeeper (a queue per lock, sessions) keep, in one process, with faults a test can inject:
 * stop (refuse), pause (hold every request until resumed), restart (forget every lock), hold the
 * replies of some operations, fail the next call of an operation. Clients reach it through
 * {@link PollingMemoryBackend} and {@link QueueMemoryBackend}, one per engine client.
 *
 * <p>Expiry uses the store's clock, which a test may drive by hand ({@link ManualClock}).
 */
public final class MemoryStore {
    /*
     * Every operation runs atomically under one lock and records a line in the log. Replies are
     * completed outside the lock, so engine callbacks never run inside it. Paused operations are kept
     * in arrival order and run on resume, the way a frozen server runs its queued commands when thawed.
     */
    private static final Map<String, MemoryStore> NAMED = new ConcurrentHashMap<>();

    /** The operations a test can hold or fail. */
    public enum Op { ACQUIRE, RENEW, RELEASE, FORCE_RELEASE, IS_LOCKED, SUBSCRIBE, ENQUEUE, CHECK_TURN, LEAVE }

    private final ReentrantLock lock = new ReentrantLock();
    private final LongSupplier nanoTime;
    private final Map<String, Hold> holds = new HashMap<>();
    private final Map<String, Tombstone> tombstones = new HashMap<>();
    private final Map<String, Deque<Ticket>> queues = new HashMap<>();
    private final Map<String, Set<Runnable>> releaseListeners = new ConcurrentHashMap<>();
    private final Set<Op> heldOps = EnumSet.noneOf(Op.class);
    private final Map<Op, Deque<RuntimeException>> failures = new EnumMap<>(Op.class);
    private final Map<Op, Deque<RuntimeException>> thrown = new EnumMap<>(Op.class);
    private final List<Runnable> heldReplies = new ArrayList<>();
    private final List<Runnable> pausedRequests = new ArrayList<>();
    private final List<String> log = new CopyOnWriteArrayList<>();
    private long lastToken;
    private boolean stopped;
    private boolean paused;

    /** Creates a store whose leases expire by {@code nanoTime}. */
    public MemoryStore(LongSupplier nanoTime) {
        this.nanoTime = nanoTime;
    }

    /** Creates a store on {@link System#nanoTime()}. */
    public MemoryStore() {
        this(System::nanoTime);
    }

    /** Returns the store registered under {@code name}, created on first use (contract tests address it by name). */
    public static MemoryStore named(String name) {
        return NAMED.computeIfAbsent(name, n -> new MemoryStore());
    }

    /** Returns a backend for one client that acquires by asking, like Redis. */
    public PollingMemoryBackend pollingBackend(Duration operationTimeout) {
        return new PollingMemoryBackend(this, operationTimeout);
    }

    /** Returns a backend for one client that acquires by queueing and has a session, like ZooKeeper. */
    public QueueMemoryBackend queueBackend(Duration operationTimeout) {
        return new QueueMemoryBackend(this, operationTimeout);
    }

    // ---- faults

    /** Refuses every request, as a stopped server does, until {@link #start()}. */
    public void stop() {
        lock.lock();
        try {
            stopped = true;
        } finally {
            lock.unlock();
        }
    }

    /** Returns whether the store refuses requests ({@link #stop()}). */
    public boolean isStopped() {
        lock.lock();
        try {
            return stopped;
        } finally {
            lock.unlock();
        }
    }

    /** Serves requests again. */
    public void start() {
        lock.lock();
        try {
            stopped = false;
        } finally {
            lock.unlock();
        }
    }

    /** Forgets every lock and queue (a restart without persistence); tokens keep increasing. */
    public void restart() {
        lock.lock();
        try {
            holds.clear();
            tombstones.clear();
            queues.clear();
            stopped = false;
        } finally {
            lock.unlock();
        }
    }

    /** Holds every request unanswered and unapplied until {@link #resume()}. */
    public void pause() {
        lock.lock();
        try {
            paused = true;
        } finally {
            lock.unlock();
        }
    }

    /** Applies the held requests in arrival order and answers them. */
    public void resume() {
        List<Runnable> toRun;
        lock.lock();
        try {
            paused = false;
            toRun = new ArrayList<>(pausedRequests);
            pausedRequests.clear();
        } finally {
            lock.unlock();
        }
        toRun.forEach(Runnable::run);
    }

    /** Applies requests of these operations at once but holds their replies until {@link #deliverReplies()}. */
    public void holdReplies(Op... ops) {
        lock.lock();
        try {
            heldOps.addAll(List.of(ops));
        } finally {
            lock.unlock();
        }
    }

    /** Sends the held replies, in order, and stops holding. */
    public void deliverReplies() {
        List<Runnable> toSend;
        lock.lock();
        try {
            heldOps.clear();
            toSend = new ArrayList<>(heldReplies);
            heldReplies.clear();
        } finally {
            lock.unlock();
        }
        toSend.forEach(Runnable::run);
    }

    /** Returns how many replies are held. */
    public int heldReplyCount() {
        lock.lock();
        try {
            return heldReplies.size();
        } finally {
            lock.unlock();
        }
    }

    /** Makes the next call of {@code op} throw {@code error} at once, instead of returning a future. */
    public void throwNext(Op op, RuntimeException error) {
        lock.lock();
        try {
            thrown.computeIfAbsent(op, o -> new ArrayDeque<>()).add(error);
        } finally {
            lock.unlock();
        }
    }

    /** Returns how many requests wait for {@link #resume()}. */
    public int pausedRequestCount() {
        lock.lock();
        try {
            return pausedRequests.size();
        } finally {
            lock.unlock();
        }
    }

    /** Makes the next call of {@code op} fail with {@code error} (without being applied). */
    public void failNext(Op op, RuntimeException error) {
        lock.lock();
        try {
            failures.computeIfAbsent(op, o -> new ArrayDeque<>()).add(error);
        } finally {
            lock.unlock();
        }
    }

    // ---- state, as a test reads it directly

    /** Returns whether someone holds the lock now (a live lease, or a queue with a head). */
    public boolean isHeld(String name) {
        lock.lock();
        try {
            return holderOf(name) != null;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Returns what the store still keeps of {@code name} that a finished user of it should have ended: a live lease,
     * queue tickets, release listeners. Tombstones stay, like Redis's (they expire there; here the store is dropped).
     */
    public List<String> leftovers(String name) {
        lock.lock();
        try {
            List<String> left = new ArrayList<>();
            if (liveHold(name) != null) {
                left.add("hold " + name);
            }
            Deque<Ticket> queue = queues.get(name);
            if (queue != null && !queue.isEmpty()) {
                left.add(queue.size() + " queue tickets of " + name);
            }
            if (listeners(name) > 0) {
                left.add(listeners(name) + " release listeners of " + name);
            }
            return left;
        } finally {
            lock.unlock();
        }
    }

    /** Returns what the store did, one line per applied request: {@code "<op> <name> <owner> -> <result>"}. */
    public List<String> log() {
        return List.copyOf(log);
    }

    /** Returns how many requests of {@code op} on {@code name} were applied. */
    /** Returns how many operations of a kind the store ran, on any lock (a batch counts once). */
    public long count(Op op) {
        String prefix = op + " ";
        return log.stream().filter(line -> line.startsWith(prefix)).count();
    }

    public long count(Op op, String name) {
        String prefix = op + " " + name + " ";
        return log.stream().filter(line -> line.startsWith(prefix)).count();
    }

    // ---- used by the backends

    <T> CompletableFuture<T> run(Op op, String name, String owner, Supplier<T> action) {
        CompletableFuture<T> reply = new CompletableFuture<>();
        Runnable apply = () -> {
            T value;
            boolean hold;
            lock.lock();
            try {
                try {
                    value = action.get();
                } catch (RuntimeException e) {
                    log.add(op + " " + name + " " + owner + " -> " + e.getMessage());
                    reply.completeExceptionally(e);
                    return;
                }
                log.add(op + " " + name + " " + owner + " -> " + value);
                hold = heldOps.contains(op);
                if (hold) {
                    T answer = value;
                    heldReplies.add(() -> reply.complete(answer));
                }
            } finally {
                lock.unlock();
            }
            if (!hold) {
                reply.complete(value);
            }
        };
        lock.lock();
        try {
            if (stopped) {
                return CompletableFuture.failedFuture(new BackendUnavailableException(op + " of lock '" + name + "': the memory store is stopped", null));
            }
            Deque<RuntimeException> throwing = thrown.get(op);
            if (throwing != null && !throwing.isEmpty()) {
                throw throwing.poll();
            }
            Deque<RuntimeException> failing = failures.get(op);
            if (failing != null && !failing.isEmpty()) {
                return CompletableFuture.failedFuture(failing.poll());
            }
            if (paused) {
                pausedRequests.add(apply);
                return reply;
            }
        } finally {
            lock.unlock();
        }
        apply.run();
        return reply;
    }

    long now() {
        return nanoTime.getAsLong();
    }

    long nextToken() {
        return ++lastToken;
    }

    /** Reserves {@code count} tokens and returns the first; call under the lock. */
    long reserveTokens(int count) {
        long first = lastToken + 1;
        lastToken += count;
        return first;
    }

    /** The lease holding the lock now, or null; call under the lock. */
    Hold liveHold(String name) {
        Hold hold = holds.get(name);
        if (hold != null && now() - hold.expiresAt >= 0) {
            holds.remove(name);
            return null;
        }
        return hold;
    }

    /** The owner holding the lock now (lease or queue head), or null; call under the lock. */
    String holderOf(String name) {
        Hold hold = liveHold(name);
        if (hold != null) {
            return hold.owner;
        }
        Deque<Ticket> queue = queues.get(name);
        return queue == null || queue.isEmpty() ? null : queue.peekFirst().owner;
    }

    Map<String, Hold> holds() {
        return holds;
    }

    Map<String, Tombstone> tombstones() {
        return tombstones;
    }

    Deque<Ticket> queue(String name) {
        return queues.computeIfAbsent(name, n -> new ArrayDeque<>());
    }

    Map<String, Deque<Ticket>> queues() {
        return queues;
    }

    void notifyReleased(String name) {
        Set<Runnable> listeners = releaseListeners.get(name);
        if (listeners != null) {
            listeners.forEach(Runnable::run);
        }
    }

    Runnable listen(String name, Runnable listener) {
        releaseListeners.computeIfAbsent(name, n -> new CopyOnWriteArraySet<>()).add(listener);
        return () -> releaseListeners.getOrDefault(name, Set.of()).remove(listener);
    }

    /** Returns how many release listeners are registered for {@code name}. */
    public int listeners(String name) {
        return releaseListeners.getOrDefault(name, Set.of()).size();
    }

    static LockException notQueued(String name) {
        return new LockException("the queue ticket of lock '" + name + "' vanished");
    }

    /** A lease on a lock. */
    static final class Hold {
        final String owner;
        final long token;
        long expiresAt;

        Hold(String owner, long token, long expiresAt) {
            this.owner = owner;
            this.token = token;
            this.expiresAt = expiresAt;
        }
    }

    /** What a free lock remembers: who released it last, and whose hold a force-unlock ended. */
    record Tombstone(String releasedBy, String forcedFrom) {}

    /** A place in a lock's queue. */
    static final class Ticket {
        final String owner;
        final long token;
        final QueueMemoryBackend client;
        volatile Runnable onTurn;

        Ticket(String owner, long token, QueueMemoryBackend client) {
            this.owner = owner;
            this.token = token;
            this.client = client;
        }
    }
}
