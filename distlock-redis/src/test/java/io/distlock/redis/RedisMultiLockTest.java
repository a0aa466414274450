package io.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.Lease;
import io.distlock.LeaseLostException;
import io.distlock.MultiLease;
import io.distlock.MultiLock;
import io.distlock.redis.testing.RedisServerExtension;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * MultiLock over real Redis locks (issue 28, finding 24: until now only over the in-memory store): all parts or
 * none, a part held elsewhere makes it release what it took, opposite orders do not deadlock, and the loss of one
 * part is the loss of the whole.
 */
class RedisMultiLockTest {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private final ExecutorService threads = Executors.newCachedThreadPool();
    private final RedisLockClient first = RedisLockClient.create(redis.target());
    private final RedisLockClient second = RedisLockClient.create(redis.target());

    @AfterEach
    void close() {
        threads.shutdownNow();
        first.close();
        second.close();
    }

    private static String name(String part) {
        return "multi-" + part;
    }

    @Test
    void aMultiLockHoldsEveryPartOrNone() throws Exception {
        String a = name("a-" + System.nanoTime());
        String b = name("b-" + System.nanoTime());
        Lease other = second.getLock(b).acquire(Duration.ofSeconds(5));

        MultiLock both = MultiLock.of(first.getLock(a), first.getLock(b));
        assertThat(both.tryAcquire(Duration.ofMillis(300))).as("part b is held elsewhere").isEmpty();
        assertThat(RawLockState.held(redis.server().port(), a)).as("part a, taken first, was released again").isFalse();

        other.close();
        try (Lease lease = both.acquire(Duration.ofSeconds(5))) {
            assertThat(RawLockState.held(redis.server().port(), a)).isTrue();
            assertThat(RawLockState.held(redis.server().port(), b)).isTrue();
            assertThat(((MultiLease) lease).parts()).extracting(Lease::fencingToken).allMatch(token -> token > 0);
        }
        assertThat(RawLockState.held(redis.server().port(), a)).isFalse();
        assertThat(RawLockState.held(redis.server().port(), b)).isFalse();
    }

    @Test
    void twoClientsLockingTheSamePartsInOppositeOrderBothFinish() throws Exception {
        String a = name("x-" + System.nanoTime());
        String b = name("y-" + System.nanoTime());
        List<Future<Integer>> workers = List.of(
                threads.submit(() -> rounds(MultiLock.of(first.getLock(a), first.getLock(b)))),
                threads.submit(() -> rounds(MultiLock.of(second.getLock(b), second.getLock(a)))));
        for (Future<Integer> worker : workers) {
            assertThat(worker.get(2, TimeUnit.MINUTES)).as("rounds completed").isEqualTo(50);
        }
    }

    private static int rounds(MultiLock lock) throws InterruptedException {
        int done = 0;
        for (int i = 0; i < 50; i++) {
            try (Lease lease = lock.acquire(Duration.ofSeconds(30))) {
                done++;
            }
        }
        return done;
    }

    @Test
    void losingOnePartLosesTheWhole() throws Exception {
        String a = name("p-" + System.nanoTime());
        String b = name("q-" + System.nanoTime());
        Lease lease = MultiLock.of(first.getLock(a), first.getLock(b)).tryAcquireDetached(Duration.ofSeconds(5)).orElseThrow();
        CompletableFuture<LeaseLostException> lost = new CompletableFuture<>();
        lease.onLost(lost::complete);

        assertThat(second.getLock(b).forceUnlock()).isTrue();

        assertThat(lost.get(30, TimeUnit.SECONDS).reason()).isEqualTo(LeaseLostException.Reason.FORCE_UNLOCKED);
        assertThat(lease.isValid()).isFalse();
        Optional<Lease> again = second.getLock(b).tryAcquire(Duration.ofSeconds(5));
        assertThat(again).as("the forced part is free for others").isPresent();
        again.get().close();
        lease.close(); // quiet: the loss was reported
    }
}
