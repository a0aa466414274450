package io.distlock.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.DistributedLock;
import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockListener;
import io.distlock.LockOptions;
import io.distlock.internal.MemoryStore.Op;
import io.distlock.spi.EngineSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Local handoffs ({@link LockOptions#localHandoffs()}, {@link CohortHandoff}) on the engine over a memory store that
 * reserves token ranges: tokens, bounds, who may take a handed-on lease, and the interleavings that could leave one
 * behind or alive after a force-unlock.
 */
class CohortHandoffTest {
    private static final LockOptions COHORT = LockOptions.builder().leaseTime(Duration.ofSeconds(60)).localHandoffs(4).build();

    /**
     * The clients' and the store's time: it moves only when a test moves it, so a lease is handed on however slow the
     * machine (on the system clock a busy CI runner let the server's last word grow older than the 10 ms bound, and the
     * lease went back to the server instead).
     */
    private final ManualClock clock = new ManualClock();
    private final MemoryStore store = new MemoryStore(clock::nanoTime);
    private final List<LockClient> clients = new CopyOnWriteArrayList<>();
    private final ExecutorService threads = Executors.newCachedThreadPool();

    private LockClient client(LockListener... listeners) {
        return manualClient(clock, store, listeners);
    }

    @AfterEach
    void closeAll() {
        store.resume();
        store.deliverReplies();
        threads.shutdownNow();
        clients.forEach(LockClient::close);
    }

    private static void awaitQueued(AtomicReference<Thread> thread) {
        Awaiting.until(() -> {
            Thread t = thread.get();
            return t != null && (t.getState() == Thread.State.WAITING || t.getState() == Thread.State.TIMED_WAITING);
        });
    }

    /**
     * Returns a lease of {@code lock} that the server granted while another thread of the client waited, so that it
     * reserved its handoffs' tokens (a grant nobody waits for takes one), with no thread waiting any more: a blocker holds,
     * two threads queue, the blocker lets go, the first of them is granted with the second still queued, and the second
     * is interrupted out of the queue.
     */
    private Lease grantedWhileAThreadWaited(DistributedLock lock) throws Exception {
        Lease blocker = lock.acquire();
        Future<Lease> granted = queuedAcquire(lock);
        AtomicReference<Thread> other = new AtomicReference<>();
        Future<Lease> interrupted = queuedAcquire(lock, other);
        blocker.close();
        Lease lease = granted.get(10, TimeUnit.SECONDS);
        other.get().interrupt();
        try {
            interrupted.get(10, TimeUnit.SECONDS).close();
            throw new AssertionError("the second waiter was not interrupted out of the queue");
        } catch (java.util.concurrent.ExecutionException expected) {
            assertThat(expected.getCause()).isInstanceOf(InterruptedException.class);
        }
        return lease;
    }

    @Test
    void threadsOfOneClientTakeTurnsWithFewerServerGrantsAndStrictlyIncreasingTokens() throws Exception {
        DistributedLock lock = client().getLock("a");
        List<Long> tokens = new ArrayList<>(); // appended under the lock: the order of holds
        int threadCount = 8;
        int holdsEach = 200;
        // a local handoff needs a thread waiting at the release: the threads start together, and a holder lets go once
        // another thread asks (or every other one is done). Without that, on a busy machine one thread could make most of
        // its holds before the pool had started the others, each through the server (CI: 892 server grants of 1,600)
        CyclicBarrier start = new CyclicBarrier(threadCount);
        AtomicInteger asking = new AtomicInteger();
        AtomicInteger finished = new AtomicInteger();
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < threadCount; t++) {
            done.add(threads.submit(() -> {
                start.await(30, TimeUnit.SECONDS);
                for (int i = 0; i < holdsEach; i++) {
                    asking.incrementAndGet();
                    try (Lease lease = lock.acquire()) {
                        asking.decrementAndGet();
                        tokens.add(lease.fencingToken());
                        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                        while (asking.get() == 0 && finished.get() < threadCount - 1 && System.nanoTime() - until < 0) {
                            Thread.onSpinWait();
                        }
                    }
                }
                finished.incrementAndGet();
                return null;
            }));
        }
        for (Future<?> f : done) {
            f.get(60, TimeUnit.SECONDS);
        }
        assertThat(tokens).hasSize(threadCount * holdsEach);
        for (int i = 1; i < tokens.size(); i++) {
            assertThat(tokens.get(i)).as("hold %d's token after %d", i, tokens.get(i - 1)).isGreaterThan(tokens.get(i - 1));
        }
        long serverGrants = store.count(Op.ACQUIRE, "a");
        assertThat(serverGrants).as("holds handed on locally instead of acquired on the server").isLessThan(tokens.size() / 2);
        assertThat(serverGrants).as("at most 4 local handoffs per server grant").isGreaterThanOrEqualTo(tokens.size() / 5);
        assertThat(store.isHeld("a")).isFalse();
    }

    @Test
    void aGrantReservesTheTokensOfItsHandoffsSoTheNextHolderElsewhereGetsALargerOne() throws Exception {
        Lease first = grantedWhileAThreadWaited(client().getLock("a"));
        long token = first.fencingToken();
        first.close(); // nobody waits: released on the server

        Lease elsewhere = client().getLock("a").acquire();
        assertThat(elsewhere.fencingToken()).as("above the 5 tokens the first grant reserved").isGreaterThan(token + 4);
        elsewhere.close();
    }

    @Test
    void aWaiterWithOtherOptionsIsNotHandedTheLease() throws Exception {
        LockClient client = client();
        Lease first = grantedWhileAThreadWaited(client.getLock("a"));
        long acquires = store.count(Op.ACQUIRE, "a");
        AtomicReference<Thread> waiter = new AtomicReference<>();
        LockOptions otherLease = COHORT.toBuilder().leaseTime(Duration.ofSeconds(90)).build();
        Future<Lease> second = threads.submit(() -> {
            waiter.set(Thread.currentThread());
            return client.getLock("a", otherLease).acquire(Duration.ofSeconds(20));
        });
        awaitQueued(waiter);
        first.close();
        Lease next = second.get(10, TimeUnit.SECONDS);
        assertThat(next.fencingToken()).as("a server grant, above the first one's range").isGreaterThan(first.fencingToken() + 4);
        assertThat(store.count(Op.ACQUIRE, "a")).isEqualTo(acquires + 1);
        next.close();
    }

    @Test
    void aWaiterOfTheSameOptionsIsHandedTheLeaseWithTheNextTokenAndNoServerCall() throws Exception {
        LockClient client = client();
        DistributedLock lock = client.getLock("a", COHORT.toBuilder().leaseTime(Duration.ofSeconds(3)).build()); // renewed every second
        Lease first = grantedWhileAThreadWaited(lock);
        long acquires = store.count(Op.ACQUIRE, "a");
        long releases = store.count(Op.RELEASE, "a");
        AtomicReference<Thread> waiter = new AtomicReference<>();
        Future<Lease> second = threads.submit(() -> {
            waiter.set(Thread.currentThread());
            return lock.acquire(Duration.ofSeconds(20));
        });
        awaitQueued(waiter);
        first.close();
        Lease next = second.get(10, TimeUnit.SECONDS);
        assertThat(next.fencingToken()).isEqualTo(first.fencingToken() + 1);
        assertThat(store.count(Op.ACQUIRE, "a")).isEqualTo(acquires);
        assertThat(store.count(Op.RELEASE, "a")).isEqualTo(releases);
        assertThat(next.isValid()).isTrue();

        store.restart(); // the server loses the lock: the new holder is told (at its next renewal), not the old one
        clock.advance(Duration.ofSeconds(1));
        Awaiting.until(() -> !next.isValid());
        assertThat(first.isValid()).isFalse(); // released by its holder
        next.close();
    }

    @Test
    void aLeaseHandedOnWhileNobodyIsLeftToTakeItIsReleasedOnTheServer() throws Exception {
        AtomicReference<Thread> waiter = new AtomicReference<>();
        CountDownLatch interrupted = new CountDownLatch(1);
        AtomicReference<Future<?>> waiting = new AtomicReference<>();
        LockClient client = client(new LockListener() {
            @Override
            public void ended(Lease lease) {
                // the holder has decided to hand on (the waiter was queued) and is about to park the lease: the waiter
                // gives up now, before the gate opens, so that nobody takes it
                Thread t = waiter.get();
                if (t != null && interrupted.getCount() > 0) {
                    t.interrupt();
                    try {
                        waiting.get().get(10, TimeUnit.SECONDS);
                    } catch (Exception expected) {
                        // interrupted, as intended
                    }
                    interrupted.countDown();
                }
            }
        });
        DistributedLock lock = client.getLock("a");
        Lease first = grantedWhileAThreadWaited(lock);
        waiting.set(threads.submit(() -> {
            waiter.set(Thread.currentThread());
            return lock.acquire(Duration.ofSeconds(20));
        }));
        awaitQueued(waiter);
        first.close();
        assertThat(interrupted.await(10, TimeUnit.SECONDS)).isTrue();
        // the lease (60 s) was handed on to nobody: it must not stay held until it expires
        Awaiting.until(() -> !store.isHeld("a"));
        assertThat(client().getLock("a").tryAcquire(Duration.ZERO)).isPresent();
    }

    @Test
    void closingTheClientWhileALeaseIsHandedOnReleasesItOnTheServer() throws Exception {
        AtomicReference<LockClient> self = new AtomicReference<>();
        LockClient client = client(new LockListener() {
            @Override
            public void ended(Lease lease) {
                LockClient closing = self.getAndSet(null);
                if (closing != null) {
                    closing.close(); // as the holder hands on: the lease is on no held list now
                }
            }
        });
        DistributedLock lock = client.getLock("a");
        Lease first = grantedWhileAThreadWaited(lock);
        self.set(client); // from now: the blocker's end in grantedWhileAThreadWaited must not close it
        Future<Lease> second = queuedAcquire(lock);
        first.close();
        assertThat(self.get()).as("closed by the listener").isNull();
        try {
            second.get(10, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException expected) {
            assertThat(expected.getCause()).isInstanceOf(IllegalStateException.class); // the client is closed
        }
        // the lease (60 s) was released by the close, not left to expire
        Awaiting.until(() -> !store.isHeld("a"));
    }

    @Test
    void aForceUnlockThroughTheClientReachesTheThreadTheLeaseWasHandedToMeanwhile() throws Exception {
        LockClient client = client();
        DistributedLock lock = client.getLock("a");
        Lease first = grantedWhileAThreadWaited(lock);
        AtomicReference<Thread> waiter = new AtomicReference<>();
        Future<Lease> second = threads.submit(() -> {
            waiter.set(Thread.currentThread());
            return lock.acquire(Duration.ofSeconds(20));
        });
        awaitQueued(waiter);

        store.holdReplies(Op.FORCE_RELEASE);
        Future<Boolean> forcing = threads.submit(lock::forceUnlock); // applied now, answered later
        Awaiting.until(() -> store.heldReplyCount() == 1);
        first.close();                                // handed on locally, under the owner id just force-unlocked
        Lease handedOn = second.get(10, TimeUnit.SECONDS);
        assertThat(handedOn.fencingToken()).isEqualTo(first.fencingToken() + 1);
        store.deliverReplies();
        assertThat(forcing.get(10, TimeUnit.SECONDS)).isTrue();

        assertThat(handedOn.isValid()).as("its hold on the server was force-unlocked").isFalse();
        assertThat(client().getLock("a").tryAcquire(Duration.ZERO)).isPresent();
    }

    private EngineLockClient manualClient(ManualClock clock, MemoryStore timed, LockListener... listeners) {
        EngineLockClient client = new EngineLockClient(timed.pollingBackend(Duration.ofSeconds(2)),
                new EngineSettings(COHORT, Duration.ofSeconds(1), "distlock-memory", List.of(listeners)), clock);
        clients.add(client);
        return client;
    }

    /** Starts a new thread (not a pooled one, which may hold the lock already) that acquires {@code lock}; returns once it waits. */
    private static Future<Lease> queuedAcquire(DistributedLock lock) {
        return queuedAcquire(lock, new AtomicReference<>());
    }

    /** As {@link #queuedAcquire(DistributedLock)}, and sets {@code thread} to the waiting thread. */
    private static Future<Lease> queuedAcquire(DistributedLock lock, AtomicReference<Thread> thread) {
        java.util.concurrent.CompletableFuture<Lease> acquiring = new java.util.concurrent.CompletableFuture<>();
        Thread waiter = new Thread(() -> {
            try {
                acquiring.complete(lock.acquire(Duration.ofSeconds(20)));
            } catch (Throwable e) {
                acquiring.completeExceptionally(e);
            }
        }, "queued-acquire");
        waiter.setDaemon(true);
        thread.set(waiter);
        waiter.start();
        awaitQueued(thread);
        return acquiring;
    }

    /** A listener that advances {@code clock} by {@code step} once, as the first holder after {@code armed} hands on (before the lease is taken). */
    private static LockListener advanceAsItHandsOn(ManualClock clock, Duration step, java.util.concurrent.atomic.AtomicBoolean armed) {
        AtomicReference<Boolean> advanced = new AtomicReference<>(false);
        return new LockListener() {
            @Override
            public void ended(Lease lease) {
                if (armed.get() && !advanced.getAndSet(true)) {
                    clock.advance(step);
                }
            }
        };
    }

    @Test
    void aParkedLeaseThatCameCloseToItsEndBeforeItWasTakenIsNotUsed() throws Exception {
        ManualClock clock = new ManualClock();
        MemoryStore timed = new MemoryStore(clock::nanoTime);
        LockOptions short15 = COHORT.toBuilder().leaseTime(Duration.ofMillis(15)).build(); // renewed every 5 ms
        // 9 ms pass between hand-on and take, renewals unanswered: the server's word is fresh enough (under 10 ms), but
        // the lease is trusted for less than one renew interval more
        java.util.concurrent.atomic.AtomicBoolean armed = new java.util.concurrent.atomic.AtomicBoolean();
        DistributedLock lock = manualClient(clock, timed, advanceAsItHandsOn(clock, Duration.ofMillis(9), armed)).getLock("a", short15);
        Lease first = grantedWhileAThreadWaited(lock);
        long acquires = timed.count(Op.ACQUIRE, "a");
        armed.set(true);
        Future<Lease> second = queuedAcquire(lock);
        timed.holdReplies(Op.RENEW);
        first.close();
        Lease next = second.get(10, TimeUnit.SECONDS);
        assertThat(next.fencingToken()).as("a server grant, above the first one's range").isGreaterThan(first.fencingToken() + 4);
        assertThat(timed.count(Op.ACQUIRE, "a")).isEqualTo(acquires + 1);
    }

    @Test
    void aParkedLeaseWhoseLastServerWordGrewOlderThanTheBoundBeforeItWasTakenIsNotUsed() throws Exception {
        ManualClock clock = new ManualClock();
        MemoryStore timed = new MemoryStore(clock::nanoTime);
        java.util.concurrent.atomic.AtomicBoolean armed = new java.util.concurrent.atomic.AtomicBoolean();
        DistributedLock lock = manualClient(clock, timed, advanceAsItHandsOn(clock, Duration.ofMillis(11), armed)).getLock("a");
        Lease first = grantedWhileAThreadWaited(lock);
        armed.set(true);
        Future<Lease> second = queuedAcquire(lock);
        first.close();
        Lease next = second.get(10, TimeUnit.SECONDS);
        assertThat(next.fencingToken()).as("a server grant, above the first one's range").isGreaterThan(first.fencingToken() + 4);
        next.close();
    }

    @Test
    void aLeaseTheServerLastConfirmedLongerAgoThanTheBoundIsNotHandedOn() throws Exception {
        ManualClock clock = new ManualClock();
        MemoryStore timed = new MemoryStore(clock::nanoTime);
        DistributedLock lock = manualClient(clock, timed).getLock("a");
        Lease first = grantedWhileAThreadWaited(lock);
        clock.advance(Duration.ofMillis(CohortHandoff.MAX_CONFIRMATION_AGE_NANOS / 1_000_000 + 1)); // held a while, no renewal due yet
        Future<Lease> second = queuedAcquire(lock);
        first.close();
        Lease next = second.get(10, TimeUnit.SECONDS);
        assertThat(next.fencingToken()).as("a server grant, above the range").isGreaterThan(first.fencingToken() + 4);
        next.close();
    }

    @Test
    void aRunOfLocalHandoffsEndsOnceTheServersLastWordIsOlderThanTheBoundThoughTokensAreLeft() throws Exception {
        ManualClock clock = new ManualClock();
        MemoryStore timed = new MemoryStore(clock::nanoTime);
        DistributedLock lock = manualClient(clock, timed).getLock("a");
        Lease first = grantedWhileAThreadWaited(lock);
        Future<Lease> second = queuedAcquire(lock);
        first.close();
        Lease handedOn = second.get(10, TimeUnit.SECONDS);
        assertThat(handedOn.fencingToken()).isEqualTo(first.fencingToken() + 1);

        Future<Lease> third = queuedAcquire(lock);
        clock.advance(Duration.ofMillis(CohortHandoff.MAX_CONFIRMATION_AGE_NANOS / 1_000_000 + 1));
        handedOn.close();
        Lease next = third.get(10, TimeUnit.SECONDS);
        assertThat(next.fencingToken()).as("a server grant, above the range").isGreaterThan(first.fencingToken() + 4);
        next.close();
    }
}
