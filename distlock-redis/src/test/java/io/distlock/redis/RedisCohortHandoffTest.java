package io.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.DistributedLock;
import io.distlock.Lease;
import io.distlock.LockOptions;
import io.distlock.redis.RedisLockScripts.Script;
import io.distlock.redis.testing.RedisServerExtension;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Local handoffs on Redis ({@link LockOptions#localHandoffs()}): the token range the acquire script reserves, and the engine over it. */
class RedisCohortHandoffTest {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();
    private static final LockOptions COHORT = LockOptions.builder().leaseTime(Duration.ofSeconds(30)).localHandoffs(4).build();

    private static RedisClient rawClient;
    private static StatefulRedisConnection<String, String> rawConnection;

    @BeforeAll
    static void connectRaw() {
        rawClient = RedisClient.create(redis.server().uri());
        rawConnection = rawClient.connect();
    }

    @AfterAll
    static void disconnectRaw() {
        rawConnection.close();
        rawClient.shutdown();
    }

    private static RedisCommands<String, String> raw() {
        return rawConnection.sync();
    }

    private static List<Long> acquireScript(String key, String owner, int count) {
        return raw().eval(Script.ACQUIRE.source, Script.ACQUIRE.output, new String[] {key}, owner, "30000", Integer.toString(count));
    }

    @Test
    void theAcquireKeepsTheLastTokenOfItsRangeAndARetryGetsThatOneAlone() {
        String key = "cohort-script:{a}";
        List<Long> first = acquireScript(key, "owner-1", 5);
        long token = first.get(1);
        assertThat(first).containsExactly(1L, token, token + 4);
        assertThat(raw().get(key)).isEqualTo((token + 4) + ":owner-1");
        assertThat(acquireScript(key, "owner-1", 5)).as("the same request again, its reply lost: the last token alone")
                .containsExactly(1L, token + 4, token + 4);
        assertThat(acquireScript(key, "owner-2", 1).get(0)).as("busy for another owner").isZero();

        raw().set(key, (token + 4) + "::released:owner-1"); // what release.lua leaves
        List<Long> next = acquireScript(key, "owner-2", 1);
        assertThat(next.get(0)).isEqualTo(1L);
        assertThat(next.get(1)).as("above the whole range").isGreaterThan(token + 4);
    }

    @Test
    void aRangeNeverRunsTheTokensMoreThanAMillisecondAheadOfTheServersClock() {
        String key = "cohort-script:{clock}";
        long micros = raw().time().stream().map(Long::parseLong).reduce((seconds, us) -> seconds * 1_000_000 + us).orElseThrow();
        long ahead = micros + 10_000_000; // a last token 10 s ahead of TIME, as a fast run of reservations could leave
        raw().set(key, ahead + "::released:someone");
        List<Long> grant = acquireScript(key, "owner-3", 1025);
        assertThat(grant).as("no range on top of a lead: the next token only").containsExactly(1L, ahead + 1, ahead + 1);

        String fresh = "cohort-script:{fresh}";
        List<Long> range = acquireScript(fresh, "owner-4", 1025);
        assertThat(range.get(2) - range.get(1)).as("a range is cut at 1,000 us past TIME").isBetween(0L, 1000L);
    }

    /**
     * A grant reserves a range only while other threads of the client wait at the gate: alone, an acquire takes one token
     * (an inspection shows the holder's own); with two waiting, the one the server grants next reserves its handoffs'
     * tokens, and the next holder in another client gets a token above them.
     */
    @Test
    void aGrantWithThreadsWaitingReservesARangeAndTheNextHolderElsewhereGetsATokenAboveIt() throws Exception {
        ExecutorService threads = Executors.newCachedThreadPool();
        try (RedisLockClient first = RedisLockClient.builder().uri(redis.server().uri()).build();
                RedisLockClient second = RedisLockClient.builder().uri(redis.server().uri()).build()) {
            String key = first.keys().lockKey("range");
            DistributedLock lock = first.getLock("range", COHORT);
            List<Thread> waiting = new java.util.concurrent.CopyOnWriteArrayList<>();
            List<Future<long[]>> waiters = new ArrayList<>();
            long alone;
            try (Lease lease = lock.acquire()) {
                alone = lease.fencingToken();
                assertThat(raw().get(key)).as("nobody waited: one token, no range").startsWith(alone + ":");
                for (int t = 0; t < 2; t++) {
                    waiters.add(threads.submit(() -> {
                        waiting.add(Thread.currentThread());
                        try (Lease next = lock.acquire()) {
                            String value = raw().get(key);
                            return new long[] {next.fencingToken(), Long.parseLong(value.substring(0, value.indexOf(':')))};
                        }
                    }));
                }
                io.distlock.servers.Await.until(Duration.ofSeconds(30), "both threads wait at the gate", () -> waiting.size() == 2
                        && waiting.stream().allMatch(w -> w.getState() == Thread.State.WAITING || w.getState() == Thread.State.TIMED_WAITING));
            }
            long[] a = waiters.get(0).get(30, TimeUnit.SECONDS);
            long[] b = waiters.get(1).get(30, TimeUnit.SECONDS);
            long[] granted = a[0] < b[0] ? a : b;
            assertThat(granted[0]).as("the server's next grant").isGreaterThan(alone);
            assertThat(granted[1]).as("granted with another thread waiting: 4 handoffs' tokens reserved").isEqualTo(granted[0] + 4);
            try (Lease lease = second.getLock("range").acquire()) {
                assertThat(lease.fencingToken()).isGreaterThan(granted[0] + 4);
            }
        } finally {
            threads.shutdownNow();
        }
    }

    @Test
    void threadsOfTwoClientsHandingOnLocallyStayExclusiveWithTokensIncreasingInHoldOrder() throws Exception {
        ExecutorService threads = Executors.newCachedThreadPool();
        try (RedisLockClient first = RedisLockClient.builder().uri(redis.server().uri()).build();
                RedisLockClient second = RedisLockClient.builder().uri(redis.server().uri()).build()) {
            List<Long> tokens = new ArrayList<>(); // appended while holding the lock: the order of holds
            AtomicInteger inside = new AtomicInteger();
            AtomicInteger overlaps = new AtomicInteger();
            List<Future<?>> done = new ArrayList<>();
            for (RedisLockClient client : List.of(first, second)) {
                DistributedLock lock = client.getLock("contended", COHORT);
                for (int t = 0; t < 4; t++) {
                    done.add(threads.submit(() -> {
                        for (int i = 0; i < 150; i++) {
                            try (Lease lease = lock.acquire()) {
                                if (inside.incrementAndGet() != 1) {
                                    overlaps.incrementAndGet();
                                }
                                tokens.add(lease.fencingToken());
                                inside.decrementAndGet();
                            }
                        }
                        return null;
                    }));
                }
            }
            for (Future<?> f : done) {
                f.get(120, TimeUnit.SECONDS);
            }
            assertThat(overlaps).hasValue(0);
            assertThat(tokens).hasSize(8 * 150);
            for (int i = 1; i < tokens.size(); i++) {
                assertThat(tokens.get(i)).as("hold %d's token after %d", i, tokens.get(i - 1)).isGreaterThan(tokens.get(i - 1));
            }
            long handedOn = 0;
            for (int i = 1; i < tokens.size(); i++) {
                if (tokens.get(i) == tokens.get(i - 1) + 1) {
                    handedOn++;
                }
            }
            assertThat(handedOn).as("holds that took the next token of the range: handed on without the server").isPositive();
            assertThat(raw().get(first.keys().lockKey("contended"))).as("nothing left held").contains("::released:");
        } finally {
            threads.shutdownNow();
        }
    }
}
