package io.distlock.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.DistributedLock;
import io.distlock.DistributedReadWriteLock;
import io.distlock.Lease;
import io.distlock.LockOptions;
import io.distlock.spi.AcquireResult;
import io.distlock.spi.EngineSettings;
import io.distlock.spi.LockBackend;
import io.distlock.spi.LockKinds;
import io.distlock.spi.OwnerCheck;
import io.distlock.spi.PollingAcquire;
import io.distlock.spi.ReadWriteStorage;
import io.distlock.spi.ReleaseSubscription;
import io.distlock.spi.SemaphoreStorage;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Per-name state lives while the name is in use, and not a moment longer. */
class SlotLifecycleTest {

    @Test
    void aNameThatNobodyHoldsOrWaitsForLeavesNothingBehind() throws Exception {
        MemoryStore store = new MemoryStore();
        try (EngineLockClient client = MemoryLockClients.client(store.pollingBackend(Duration.ofSeconds(1)), LockOptions.defaults(),
                new SystemClock("test-timer"))) {
            for (int i = 0; i < 1000; i++) {
                DistributedLock lock = client.getLock("order:" + i);
                lock.lock();
                assertThat(client.slots().find("order:" + i)).isNotNull();
                lock.unlock();
                try (Lease lease = client.getLock("order:" + i).acquire()) {
                    assertThat(lease.isValid()).isTrue();
                }
                assertThat(client.getLock("order:" + i).tryAcquire(Duration.ZERO)).isPresent().get().satisfies(Lease::close);
            }
            assertThat(client.slots().size()).as("slots of names nobody uses").isZero();
            assertThat(client.heldCount()).isZero();
        }
    }

    @Test
    void twoLockObjectsOfOneNameShareTheHoldAndTheSlotLivesWhileItIsHeld() throws Exception {
        MemoryStore store = new MemoryStore();
        try (EngineLockClient client = MemoryLockClients.client(store.pollingBackend(Duration.ofSeconds(1)), LockOptions.defaults(),
                new SystemClock("test-timer"))) {
            DistributedLock first = client.getLock("a");
            DistributedLock second = client.getLock("a");
            first.lock();
            assertThat(second.isHeldByCurrentThread()).isTrue();
            second.lock();
            assertThat(first.getHoldCount()).isEqualTo(2);
            first.unlock();
            assertThat(client.slots().find("a")).as("still held once").isNotNull();
            second.unlock();
            assertThat(client.slots().find("a")).isNull();
            assertThat(store.isHeld("a")).isFalse();
        }
    }

    @Test
    void aLingeringReleaseSubscriptionKeepsItsSlotUntilItIsDropped() throws Exception {
        MemoryStore store = new MemoryStore();
        ManualClock clock = new ManualClock();
        try (EngineLockClient holder = MemoryLockClients.client(store.pollingBackend(Duration.ofSeconds(1)), LockOptions.defaults(), clock);
                EngineLockClient waiter = MemoryLockClients.client(store.pollingBackend(Duration.ofSeconds(1)), LockOptions.defaults(), clock)) {
            Lease held = holder.getLock("a").acquire();
            CompletableFuture<Optional<Lease>> waiting = CompletableFuture.supplyAsync(() -> {
                try {
                    return waiter.getLock("a").tryAcquire(Duration.ofSeconds(1)); // subscribes, waits, gives up
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            Awaiting.until(() -> store.listeners("a") == 1);
            clock.advance(Duration.ofSeconds(2));
            assertThat(waiting.get(10, TimeUnit.SECONDS)).isEmpty();
            assertThat(store.listeners("a")).isEqualTo(1);
            assertThat(waiter.slots().find("a")).as("the subscription lingers, and with it the slot").isNotNull();
            clock.advance(Duration.ofSeconds(3));
            assertThat(store.listeners("a")).isZero();
            assertThat(waiter.slots().find("a")).isNull();
            held.close();
        }
    }

    @Test
    void lockingThreeHundredThousandDistinctNamesLeavesTheHeapWhereItWas() throws Exception {
        try (EngineLockClient client = new EngineLockClient(new ForgetfulBackend(),
                new EngineSettings(LockOptions.defaults(), Duration.ofSeconds(1), "heap-test"))) {
            for (int i = 0; i < 10_000; i++) { // warm up: classes loaded, pools sized
                client.getLock("warm:" + i).acquire().close();
            }
            long before = settledHeap();
            for (int i = 0; i < 300_000; i++) {
                DistributedLock lock = client.getLock("order:" + i);
                lock.lock();
                lock.unlock();
            }
            long growth = settledHeap() - before;
            System.out.printf("heap growth after 300,000 distinct names: %d KiB, slots left %d, watchdog entries %d%n",
                    growth / 1024, client.slots().size(), client.engine().watchdog().queued());
            assertThat(client.slots().size()).isZero();
            // about 89 MiB when slots were kept per name; the target is 2 MiB (docs/benchmarks.md has the figure)
            assertThat(growth).as("heap growth in bytes").isLessThan(16L * 1024 * 1024);
        }
    }

    /**
     * Issue 28, finding 10: a semaphore kept state per number of permits for the life of the client (a LockSpace each),
     * so an application that sized semaphores by the request grew without end. Every kind's per-name state, too, is
     * gone once the name is no longer used.
     */
    @Test
    void oneHundredThousandDistinctNamesAndNumbersOfPermitsLeaveNothingBehindOnAnyKind() throws Exception {
        try (EngineLockClient client = new EngineLockClient(new ForgetfulBackend(),
                new EngineSettings(LockOptions.defaults(), Duration.ofSeconds(1), "kinds-test"))) {
            client.getFairLock("warm").acquire().close();
            client.getReadWriteLock("warm").writeLock().acquire().close();
            int spaces = client.kindSpaceCount(); // fair, read, write: one each for the client's life
            for (int i = 1; i <= 100_000; i++) {
                client.getSemaphore("jobs:" + i, i).acquire().close();
                client.getFairLock("fair:" + i).acquire().close();
                DistributedReadWriteLock rw = client.getReadWriteLock("rw:" + i);
                (i % 2 == 0 ? rw.readLock() : rw.writeLock()).acquire().close();
            }
            assertThat(client.kindSpaceCount()).as("kinds of lock the client keeps state for").isEqualTo(spaces);
            assertThat(client.slotsInUse()).as("names in use").isZero();
            assertThat(client.heldCount()).isZero();
        }
    }

    private static long settledHeap() throws InterruptedException {
        Runtime runtime = Runtime.getRuntime();
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            System.gc();
            TimeUnit.MILLISECONDS.sleep(50);
            used = Math.min(used, runtime.totalMemory() - runtime.freeMemory());
        }
        return used;
    }

    /** A backend that grants everything and remembers nothing, so only the engine's own memory counts; every kind too. */
    private static final class ForgetfulBackend implements LockBackend, PollingAcquire, LockKinds {
        private final AtomicLong tokens = new AtomicLong();

        @Override
        public LockBackend fairLocks() {
            return new ForgetfulBackend();
        }

        @Override
        public ReadWriteStorage readWriteLocks() {
            ForgetfulBackend readers = new ForgetfulBackend();
            ForgetfulBackend writers = new ForgetfulBackend();
            return new ReadWriteStorage() {
                @Override
                public LockBackend readers() {
                    return readers;
                }

                @Override
                public LockBackend writers() {
                    return writers;
                }

                @Override
                public CompletableFuture<Integer> forceReleaseAll(String name) {
                    return CompletableFuture.completedFuture(0);
                }

                @Override
                public CompletableFuture<AcquireResult> downgrade(String name, String writerOwnerId, String readerOwnerId, Duration leaseTime) {
                    return readers.tryAcquire(name, readerOwnerId, leaseTime);
                }
            };
        }

        @Override
        public SemaphoreStorage semaphores() {
            return new SemaphoreStorage() {
                @Override
                public LockBackend withPermits(int permits) {
                    return new ForgetfulBackend();
                }

                @Override
                public CompletableFuture<Integer> availablePermits(String name, int permits) {
                    return CompletableFuture.completedFuture(permits);
                }
            };
        }

        @Override
        public String describe() {
            return "forgetful";
        }

        @Override
        public Duration operationTimeout() {
            return Duration.ofSeconds(1);
        }

        @Override
        public CompletableFuture<AcquireResult> tryAcquire(String name, String ownerId, Duration leaseTime) {
            return CompletableFuture.completedFuture(AcquireResult.granted(tokens.incrementAndGet()));
        }

        @Override
        public CompletableFuture<ReleaseSubscription> watchReleases(String name, Runnable onMaybeFree) {
            return CompletableFuture.completedFuture(() -> { });
        }

        @Override
        public CompletableFuture<OwnerCheck> renew(String name, String ownerId, Duration leaseTime) {
            return CompletableFuture.completedFuture(OwnerCheck.OWNER);
        }

        @Override
        public CompletableFuture<OwnerCheck> release(String name, String ownerId) {
            return CompletableFuture.completedFuture(OwnerCheck.OWNER);
        }

        @Override
        public CompletableFuture<Boolean> forceRelease(String name) {
            return CompletableFuture.completedFuture(false);
        }

        @Override
        public CompletableFuture<Boolean> isLocked(String name) {
            return CompletableFuture.completedFuture(false);
        }

        @Override
        public void close() {
        }
    }
}
