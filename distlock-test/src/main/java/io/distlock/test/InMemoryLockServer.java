package io.distlock.test;

import io.distlock.LockClient;
import io.distlock.LockOptions;
import io.distlock.spi.AcquireResult;
import io.distlock.spi.EngineSettings;
import io.distlock.spi.LockBackend;
import io.distlock.spi.LockEngine;
import io.distlock.spi.OwnerCheck;
import io.distlock.spi.PollingAcquire;
import io.distlock.spi.ReleaseSubscription;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * A lock server in this JVM, for tests of code that locks with distlock: its clients run distlock's real engine
 * (reentrancy, waiting, the watchdog, loss reports, fencing tokens) over a map instead of a network. Clients of one
 * server stand for instances of an application sharing one backend; each test usually makes its own server.
 *
 * <p>What a test can do to it that a real server does by accident:
 * <ul>
 *   <li>{@link #loseLease(String)}: the server forgets a hold, as after a failover that missed it, or a lease that ran
 *       out during a pause of its holder. The holder learns at its next renewal (a third of its lease time), is told
 *       through {@code Lease.onLost} ({@code SERVER_LOST_LOCK}, or {@code TAKEN_OVER} if another client took the lock
 *       meanwhile), and its unlock throws {@code LeaseLostException}; the lock is free for others at once.</li>
 *   <li>{@link #advanceClock(Duration)}: the server's clock jumps forward; every lease that ends within the jump is
 *       gone. Only the server's clock moves: the clients' watchdogs keep real time.</li>
 *   <li>{@link #forceUnlock(String)}: an operator's force-unlock.</li>
 * </ul>
 *
 * <p>Plain locks only ({@code getLock}); the fair, read-write and semaphore kinds throw
 * {@link UnsupportedOperationException} (test those on a real backend). Client default lease: 3 s, renewed every
 * second (a third of the lease): the holder learns of a simulated loss at its next renewal; pass other {@link LockOptions} to
 * {@link #newClient(LockOptions)}.
 */
public final class InMemoryLockServer implements AutoCloseable {
    /** The default options of {@link #newClient()}: a 3 s lease, renewed. */
    public static final LockOptions TEST_DEFAULTS = LockOptions.builder().leaseTime(Duration.ofSeconds(3)).build();
    private static final AtomicInteger SERVERS = new AtomicInteger();

    private final String name = "memory-" + SERVERS.incrementAndGet();
    private final Map<String, Hold> holds = new HashMap<>();
    /** Owners whose hold was force-unlocked, per name, until the name is taken again: their renewals say so. */
    private final Map<String, String> forceUnlocked = new HashMap<>();
    /** Owners that released, the last few thousand: a release sent again answers as the first did. */
    private final Set<String> released = java.util.Collections.newSetFromMap(new java.util.LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
            return size() > 4096;
        }
    });
    private final Map<String, List<Runnable>> watchers = new HashMap<>();
    private final List<LockClient> clients = new CopyOnWriteArrayList<>();
    private final ExecutorService notifier = Executors.newSingleThreadExecutor(task -> {
        Thread thread = new Thread(task, "distlock-test-" + name);
        thread.setDaemon(true);
        return thread;
    });
    private long clockOffsetNanos;
    private long lastToken;
    private boolean closed;

    private record Hold(String owner, long token, long expiresAtNanos) {}

    /** Returns a new client of this server with {@link #TEST_DEFAULTS}; {@link #close()} closes it too. */
    public LockClient newClient() {
        return newClient(TEST_DEFAULTS);
    }

    /** Returns a new client of this server whose locks have {@code defaults}; {@link #close()} closes it too. */
    public LockClient newClient(LockOptions defaults) {
        synchronized (this) {
            if (closed) {
                throw new IllegalStateException("in-memory lock server " + name + " is closed");
            }
        }
        LockClient client = LockEngine.newClient(new Backend(), new EngineSettings(defaults, Duration.ofMillis(200), "distlock-test"));
        clients.add(client);
        return client;
    }

    /**
     * Forgets the hold of lock {@code name}, as a server that lost it would: its holder is told at its next renewal, and
     * the lock is free for others at once.
     *
     * @return whether it was held
     */
    public boolean loseLease(String name) {
        boolean held;
        synchronized (this) {
            held = liveHold(name) != null;
            holds.remove(name);
        }
        freed(name);
        return held;
    }

    /**
     * Moves the server's clock forward by {@code jump}: every lease ending within it ends now, and its lock is free.
     * Holders learn at their next renewal.
     */
    public void advanceClock(Duration jump) {
        if (jump == null || jump.isNegative()) {
            throw new IllegalArgumentException("jump must be zero or positive, was " + jump);
        }
        List<String> ended = new ArrayList<>();
        synchronized (this) {
            clockOffsetNanos += jump.toNanos();
            long now = now();
            holds.forEach((lock, hold) -> {
                if (hold.expiresAtNanos - now <= 0) {
                    ended.add(lock);
                }
            });
        }
        ended.forEach(this::freed);
    }

    /** Frees lock {@code name} whoever holds it, as an operator would; returns whether it was held. */
    public boolean forceUnlock(String name) {
        boolean held;
        synchronized (this) {
            Hold hold = liveHold(name);
            held = hold != null;
            if (hold != null) {
                holds.remove(name);
                forceUnlocked.put(name, hold.owner);
            }
        }
        freed(name);
        return held;
    }

    /** Returns whether lock {@code name} is held on this server now. */
    public synchronized boolean isLocked(String name) {
        return liveHold(name) != null;
    }

    /** Returns the fencing token of the current hold of {@code name}, or -1 if it is free. */
    public synchronized long fencingToken(String name) {
        Hold hold = liveHold(name);
        return hold == null ? -1 : hold.token;
    }

    /** Closes every client of this server (releasing what they hold) and the server. Idempotent. */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        clients.forEach(LockClient::close);
        notifier.shutdown();
    }

    @Override
    public String toString() {
        return "InMemoryLockServer[" + name + "]";
    }

    private long now() {
        return System.nanoTime() + clockOffsetNanos;
    }

    /** Call holding the monitor. */
    private @Nullable Hold liveHold(String lock) {
        Hold hold = holds.get(lock);
        if (hold != null && hold.expiresAtNanos - now() <= 0) {
            holds.remove(lock);
            return null;
        }
        return hold;
    }

    /** Wakes the waiters of {@code lock}, off the caller's thread (as a real server's notification would come). */
    private void freed(String lock) {
        List<Runnable> toWake;
        synchronized (this) {
            toWake = List.copyOf(watchers.getOrDefault(lock, List.of()));
            if (closed) {
                return;
            }
        }
        if (!toWake.isEmpty()) {
            notifier.execute(() -> toWake.forEach(Runnable::run));
        }
    }

    private static <T> CompletableFuture<T> answer(T value) {
        return CompletableFuture.completedFuture(value);
    }

    /** One client's connection to the server. */
    private final class Backend implements LockBackend, PollingAcquire {
        private final List<Map.Entry<String, Runnable>> myWatchers = new CopyOnWriteArrayList<>();

        @Override
        public String describe() {
            return "memory://" + name;
        }

        @Override
        public Duration operationTimeout() {
            return Duration.ofSeconds(1);
        }

        @Override
        public boolean leasesEndOnTheServer() {
            return true;
        }

        @Override
        public CompletableFuture<AcquireResult> tryAcquire(String lock, String ownerId, Duration leaseTime) {
            synchronized (InMemoryLockServer.this) {
                Hold hold = liveHold(lock);
                long now = now();
                if (hold != null && !hold.owner.equals(ownerId)) {
                    return answer(AcquireResult.busy(Duration.ofNanos(Math.max(0, hold.expiresAtNanos - now))));
                }
                long token = hold != null ? hold.token : ++lastToken;
                holds.put(lock, new Hold(ownerId, token, now + leaseTime.toNanos()));
                forceUnlocked.remove(lock);
                released.remove(ownerId);
                return answer(AcquireResult.granted(token));
            }
        }

        @Override
        public CompletableFuture<ReleaseSubscription> watchReleases(String lock, Runnable onMaybeFree) {
            synchronized (InMemoryLockServer.this) {
                watchers.computeIfAbsent(lock, n -> new ArrayList<>()).add(onMaybeFree);
            }
            Map.Entry<String, Runnable> entry = Map.entry(lock, onMaybeFree);
            myWatchers.add(entry);
            return answer(() -> {
                myWatchers.remove(entry);
                unwatch(lock, onMaybeFree);
            });
        }

        private void unwatch(String lock, Runnable onMaybeFree) {
            synchronized (InMemoryLockServer.this) {
                List<Runnable> list = watchers.get(lock);
                if (list != null) {
                    list.remove(onMaybeFree);
                    if (list.isEmpty()) {
                        watchers.remove(lock);
                    }
                }
            }
        }

        @Override
        public CompletableFuture<OwnerCheck> renew(String lock, String ownerId, Duration leaseTime) {
            synchronized (InMemoryLockServer.this) {
                Hold hold = liveHold(lock);
                if (hold != null && hold.owner.equals(ownerId)) {
                    holds.put(lock, new Hold(ownerId, hold.token, now() + leaseTime.toNanos()));
                    return answer(OwnerCheck.OWNER);
                }
                return answer(notOwner(lock, ownerId, hold));
            }
        }

        private OwnerCheck notOwner(String lock, String ownerId, @Nullable Hold hold) {
            if (ownerId.equals(forceUnlocked.get(lock))) {
                return OwnerCheck.FORCE_UNLOCKED;
            }
            return hold != null ? OwnerCheck.OTHER_OWNER : OwnerCheck.MISSING;
        }

        @Override
        public CompletableFuture<OwnerCheck> release(String lock, String ownerId) {
            OwnerCheck found;
            synchronized (InMemoryLockServer.this) {
                Hold hold = liveHold(lock);
                if (hold != null && hold.owner.equals(ownerId)) {
                    holds.remove(lock);
                    released.add(ownerId);
                    found = OwnerCheck.OWNER;
                } else {
                    found = released.contains(ownerId) ? OwnerCheck.OWNER : notOwner(lock, ownerId, hold);
                }
            }
            if (found == OwnerCheck.OWNER) {
                freed(lock);
            }
            return answer(found);
        }

        @Override
        public CompletableFuture<Boolean> forceRelease(String lock) {
            return answer(forceUnlock(lock));
        }

        @Override
        public CompletableFuture<Boolean> isLocked(String lock) {
            return answer(InMemoryLockServer.this.isLocked(lock));
        }

        @Override
        public void close() {
            for (Map.Entry<String, Runnable> entry : myWatchers) {
                unwatch(entry.getKey(), entry.getValue());
            }
            myWatchers.clear();
        }
    }
}
