package io.distlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.internal.MemoryLockClients;
import io.distlock.internal.MemoryStore;
import io.distlock.internal.MemoryStore.Op;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** MultiLock over locks of two engine clients on one in-memory store (MultiLock works over any locks). */
class MultiLockTest {
    private final MemoryStore store = new MemoryStore();

    private LockClient client() {
        return MemoryLockClients.polling(store, Duration.ofSeconds(1), Duration.ofSeconds(1));
    }

    @Test
    void aPartialAcquisitionIsRolledBack() throws Exception {
        try (LockClient first = client(); LockClient second = client()) {
            Lease blocker = second.getLock("multi-b").acquire();
            MultiLock all = MultiLock.of(first.getLock("multi-c"), first.getLock("multi-a"), first.getLock("multi-b"));

            assertThat(all.tryAcquire(Duration.ofMillis(300))).isEmpty();

            assertThat(store.log()).as("the part before the busy one was taken, then given back")
                    .anyMatch(line -> line.startsWith("ACQUIRE multi-a ") && line.contains("granted=true"))
                    .anyMatch(line -> line.startsWith("RELEASE multi-a ") && line.endsWith("OWNER"));
            assertThat(store.count(Op.ACQUIRE, "multi-c")).as("the part after the busy one was never asked for").isZero();
            assertThat(first.getLock("multi-a").isLocked()).as("the part acquired before the busy one was released").isFalse();
            assertThat(first.getLock("multi-c").isLocked()).as("the part after the busy one was never taken").isFalse();
            assertThat(all.isHeldByCurrentThread()).isFalse();
            blocker.close();
            try (Lease lease = all.acquire(Duration.ofSeconds(5))) {
                assertThat(((MultiLease) lease).parts()).extracting(Lease::lockName).containsExactly("multi-a", "multi-b", "multi-c");
                assertThat(all.isLocked()).isTrue();
            }
            assertThat(all.isLocked()).isFalse();
        }
    }

    @Test
    void aDetachedMultiLeaseHoldsEveryPartForNoThreadUntilClosedElsewhere() throws Exception {
        try (LockClient first = client(); LockClient second = client()) {
            MultiLock all = MultiLock.of(first.getLock("multi-d1"), first.getLock("multi-d2"));
            Lease lease = all.tryAcquireDetached(Duration.ofSeconds(5)).orElseThrow();
            assertThat(all.isHeldByCurrentThread()).isFalse();
            assertThat(first.getLock("multi-d2").tryAcquire(Duration.ZERO)).as("no re-entry by the acquiring thread").isEmpty();
            assertThat(second.getLock("multi-d1").isLocked()).isTrue();
            CompletableFuture.runAsync(lease::close).get(10, TimeUnit.SECONDS);
            assertThat(all.isLocked()).isFalse();

            Lease blocker = second.getLock("multi-d2").acquire();
            assertThat(all.tryAcquireDetached(Duration.ofMillis(200))).as("a busy part: none held").isEmpty();
            assertThat(first.getLock("multi-d1").isLocked()).isFalse();
            blocker.close();
        }
    }

    @Test
    void twoClientsLockingOverlappingSetsInOppositeOrdersDoNotDeadlockAndExclude() throws Exception {
        try (LockClient first = client(); LockClient second = client()) {
            MultiLock forward = MultiLock.of(first.getLock("multi-x"), first.getLock("multi-y"));
            MultiLock backward = MultiLock.of(second.getLock("multi-y"), second.getLock("multi-x"));
            AtomicInteger inside = new AtomicInteger();
            AtomicInteger overlaps = new AtomicInteger();
            ExecutorService pool = Executors.newFixedThreadPool(6);
            try {
                List<Future<?>> done = new ArrayList<>();
                for (int t = 0; t < 6; t++) {
                    MultiLock lock = t % 2 == 0 ? forward : backward;
                    done.add(pool.submit(() -> {
                        for (int i = 0; i < 30; i++) {
                            try (Lease lease = lock.acquire(Duration.ofSeconds(20))) {
                                if (inside.incrementAndGet() != 1) {
                                    overlaps.incrementAndGet();
                                }
                                inside.decrementAndGet();
                            }
                        }
                        return null;
                    }));
                }
                for (Future<?> future : done) {
                    future.get(60, TimeUnit.SECONDS); // a deadlock would time out here
                }
            } finally {
                pool.shutdownNow();
            }
            assertThat(overlaps).hasValue(0);
        }
    }

    @Test
    void theLeaseIsLostWhenAnyPartIsLostAndReportsTheSmallestRemainder() throws Exception {
        try (LockClient first = client(); LockClient admin = client()) {
            DistributedLock shortLease = first.getLock("multi-short", io.distlock.LockOptions.builder().leaseTime(Duration.ofSeconds(5)).build());
            MultiLock both = MultiLock.of(first.getLock("multi-long"), shortLease);
            Lease lease = both.acquire(Duration.ofSeconds(5));
            CompletableFuture<LeaseLostException> lost = new CompletableFuture<>();
            lease.onLost(lost::complete);
            assertThat(lease.remaining()).isLessThanOrEqualTo(Duration.ofSeconds(5)).isPositive();
            assertThat(lease.fencingToken()).isEqualTo(((MultiLease) lease).parts().get(0).fencingToken());

            assertThat(admin.getLock("multi-short").forceUnlock()).isTrue();

            assertThat(lost.get(20, TimeUnit.SECONDS).getMessage()).contains("multi-short");
            assertThat(lease.isValid()).isFalse();
            assertThat(lease.remaining()).isZero();
            lease.close(); // quiet; the other part is released
            assertThat(admin.getLock("multi-long").isLocked()).isFalse();
        }
    }

    @Test
    void aPartThatFailsRollsBackThePartsBeforeItAndThrowsItsFailure() throws Exception {
        MemoryStore otherStore = new MemoryStore();
        try (LockClient first = client();
                LockClient second = MemoryLockClients.polling(otherStore, Duration.ofSeconds(1), Duration.ofSeconds(1))) {
            MultiLock all = MultiLock.of(first.getLock("fail-a"), second.getLock("fail-b"), first.getLock("fail-c"));
            otherStore.failNext(Op.ACQUIRE, new LockException("acquire of lock 'fail-b' was refused: NOPERM"));

            assertThatThrownBy(() -> all.acquire(Duration.ofSeconds(5))).isInstanceOf(LockException.class).hasMessageContaining("NOPERM");

            assertThat(store.log()).as("the part before the failing one was taken, then given back")
                    .anyMatch(line -> line.startsWith("ACQUIRE fail-a ") && line.contains("granted=true"))
                    .anyMatch(line -> line.startsWith("RELEASE fail-a ") && line.endsWith("OWNER"));
            assertThat(store.count(Op.ACQUIRE, "fail-c")).isZero();
            assertThat(store.isHeld("fail-a")).isFalse();
            assertThat(all.isHeldByCurrentThread()).isFalse();
        }
    }

    @Test
    void threadBoundUseAndBadInput() throws Exception {
        try (LockClient first = client()) {
            MultiLock both = MultiLock.of(first.getLock("multi-p"), first.getLock("multi-q"));
            assertThatThrownBy(both::unlock).isInstanceOf(IllegalMonitorStateException.class).hasMessageContaining("multi(multi-p,multi-q)");
            both.lock();
            assertThat(both.isHeldByCurrentThread()).isTrue();
            assertThat(both.getHoldCount()).isEqualTo(1);
            assertThat(both.heldLease().isValid()).isTrue();
            both.unlock();
            assertThat(both.isLocked()).isFalse();

            assertThatThrownBy(() -> MultiLock.of()).hasMessageContaining("at least one lock");
            assertThatThrownBy(() -> MultiLock.of(first.getLock("multi-p"), null)).hasMessageContaining("lock 1 of the multi-lock is null");
            assertThatThrownBy(() -> both.tryAcquire(Duration.ofSeconds(-1))).hasMessageContaining("waitTime");
            try (LockClient second = client()) {
                assertThatThrownBy(() -> MultiLock.of(first.getLock("multi-p"), second.getLock("multi-p")))
                        .hasMessageContaining("two parts of the multi-lock are named 'multi-p'");
            }
            try (Lease forever = both.acquire(Duration.ofDays(365L * 1000))) {
                assertThat(forever.isValid()).as("a wait longer than 292 years means forever, not an overflow").isTrue();
            }
        }
    }
}
