package io.distlock.fencing.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.fencing.FencingContext;
import io.distlock.fencing.PausedHolder;
import io.distlock.fencing.StaleTokenException;
import io.distlock.redis.testing.RedisClusterGroup;
import io.distlock.redis.testing.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Fenced writes on a real redis-server and a real Redis Cluster: a lower token is refused and the newer holder's write
 * stands, every write kind, tokens beyond what a double holds, concurrent writers with shuffled tokens, and keys in
 * any slot of a cluster.
 */
class RedisFencingTest {
    private static RedisServer server;
    private static RedisClient client;
    private static StatefulRedisConnection<String, String> connection;
    private static RedisCommands<String, String> redis;

    @BeforeAll
    static void launch() {
        server = RedisServer.launch();
        client = RedisClient.create(server.uri());
        connection = client.connect();
        redis = connection.sync();
    }

    @AfterAll
    static void close() {
        connection.close();
        client.shutdown();
        server.close();
    }

    @Test
    void aLowerTokenIsRefusedAndTheNewerHoldersWriteStands() {
        FencedRedis fenced = FencedRedis.on(redis);
        fenced.set("order:1", 5, "paid by holder 5");
        assertThatThrownBy(() -> fenced.set("order:1", 3, "paid by holder 3, paused past its lease"))
                .isInstanceOfSatisfying(StaleTokenException.class, stale -> {
                    assertThat(stale.presented()).isEqualTo(3);
                    assertThat(stale.highestSeen()).isEqualTo(5);
                    assertThat(stale.resource()).contains("order:1");
                });
        assertThat(redis.get("order:1")).isEqualTo("paid by holder 5");
        fenced.set("order:1", 5, "holder 5 again");
        fenced.set("order:1", 6, "holder 6");
        assertThat(redis.get("order:1")).isEqualTo("holder 6");
    }

    /** A holder JVM frozen past its lease (SIGSTOP) on a lock in this Redis writes once thawed: refused. */
    @Test
    void aHolderFrozenPastItsLeaseHasItsLateWriteRefusedAndTheNewerWriteStands() throws Exception {
        FencedRedis fenced = FencedRedis.on(redis);
        long[] newer = new long[1];
        String outcome = PausedHolder.lateWriteAfterANewerHolder(server.uri(), "order-9", List.of("redis", server.uri(), "order:9", "late"), token -> {
            newer[0] = token;
            fenced.set("order:9", token, "newer");
        });
        assertThat(outcome).isEqualTo("STALE " + newer[0]);
        assertThat(redis.get("order:9")).isEqualTo("newer");
    }

    @Test
    void everyWriteKindIsFencedAndADeleteKeepsTheFence() {
        FencedRedis fenced = FencedRedis.on(redis);
        redis.set("stock:1", "10");
        assertThat(fenced.decrBy("stock:1", 2, 3)).isEqualTo(7);
        assertThat(fenced.incrBy("stock:1", 2, 1)).isEqualTo(8);
        assertThatThrownBy(() -> fenced.decrBy("stock:1", 1, 1)).isInstanceOf(StaleTokenException.class);
        assertThat(fenced.hset("cart:1", 4, Map.of("sku-1", "2", "sku-2", "1"))).isEqualTo(2);
        assertThatThrownBy(() -> fenced.hset("cart:1", 3, Map.of("sku-1", "9"))).isInstanceOf(StaleTokenException.class);
        assertThat(redis.hget("cart:1", "sku-1")).isEqualTo("2");
        assertThat(fenced.del("stock:1", 9)).isTrue();
        assertThatThrownBy(() -> fenced.set("stock:1", 8, "recreated by a late writer")).isInstanceOf(StaleTokenException.class);
        assertThat(redis.exists("stock:1")).as("a late writer cannot bring the deleted key back").isZero();
        assertThat(redis.get(FencedRedis.tokenKey("stock:1"))).isEqualTo("9");
    }

    @Test
    void aFencedReadRecordsItsTokenSoAnOlderReadersLateWriteIsRefused() {
        FencedRedis fenced = FencedRedis.on(redis);
        redis.set("stock:2", "10");
        assertThat(fenced.get("stock:2", 3)).as("holder 3 reads, then is paused past its lease").isEqualTo("10");
        assertThat(fenced.get("stock:2", 4)).as("holder 4 reads; it has not written yet").isEqualTo("10");
        assertThatThrownBy(() -> fenced.set("stock:2", 3, "9")).as("holder 3 wakes up and writes from its stale read")
                .isInstanceOfSatisfying(StaleTokenException.class, stale -> assertThat(stale.highestSeen()).isEqualTo(4));
        fenced.set("stock:2", 4, "9");
        assertThat(redis.get("stock:2")).isEqualTo("9");
        assertThatThrownBy(() -> fenced.get("stock:2", 2)).isInstanceOf(StaleTokenException.class);
        assertThat(fenced.get("stock:absent", 1)).isNull();
        assertThat(redis.get(FencedRedis.tokenKey("stock:absent"))).as("a read of an absent key records its token").isEqualTo("1");
    }

    @Test
    void withoutATokenTheGuardTakesTheCurrentOneAndRefusesWhenThereIsNone() {
        FencedRedis fenced = FencedRedis.on(redis);
        assertThatThrownBy(() -> fenced.set("ctx:1", "x")).isInstanceOf(IllegalStateException.class).hasMessageContaining("no fencing token");
        assertThat(redis.exists("ctx:1")).as("nothing written").isZero();
        try (FencingContext.Scope outer = FencingContext.enter(7)) {
            fenced.set("ctx:1", "seven");
            try (FencingContext.Scope inner = FencingContext.enter(9)) {
                assertThat(fenced.incrBy("ctx:n", 2)).isEqualTo(2);
            }
            assertThatThrownBy(() -> fenced.decrBy("ctx:n", 1)).as("7, the outer token again, is below 9")
                    .isInstanceOfSatisfying(StaleTokenException.class, stale -> assertThat(stale.presented()).isEqualTo(7));
        }
        assertThat(redis.get(FencedRedis.tokenKey("ctx:1"))).isEqualTo("7");
        assertThat(redis.get(FencedRedis.tokenKey("ctx:n"))).isEqualTo("9");
    }

    @Test
    void anAppendToALogIsFenced() {
        FencedRedis fenced = FencedRedis.on(redis);
        assertThat(fenced.rpush("log:1", 1, "a", "b")).isEqualTo(2);
        assertThat(fenced.rpush("log:1", 2, "c")).isEqualTo(3);
        assertThatThrownBy(() -> fenced.rpush("log:1", 1, "late")).isInstanceOf(StaleTokenException.class);
        assertThat(redis.lrange("log:1", 0, -1)).containsExactly("a", "b", "c");
        assertThatThrownBy(() -> fenced.rpush("log:1", 3)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void tokensBeyondWhatADoubleHoldsCompareExactly() {
        FencedRedis fenced = FencedRedis.on(redis);
        long twoTo53 = 1L << 53; // 2^53 and 2^53 + 1 are the same double
        fenced.set("edge:1", twoTo53 + 1, "newer");
        assertThatThrownBy(() -> fenced.set("edge:1", twoTo53, "older")).isInstanceOf(StaleTokenException.class);
        fenced.set("edge:2", Long.MAX_VALUE - 1, "a");
        fenced.set("edge:2", Long.MAX_VALUE, "b");
        assertThatThrownBy(() -> fenced.set("edge:2", Long.MAX_VALUE - 1, "c"))
                .isInstanceOfSatisfying(StaleTokenException.class, stale -> assertThat(stale.highestSeen()).isEqualTo(Long.MAX_VALUE));
        assertThatThrownBy(() -> fenced.set("edge:2", 99, "d")).as("fewer digits").isInstanceOf(StaleTokenException.class);
        assertThat(redis.get("edge:2")).isEqualTo("b");
        assertThatThrownBy(() -> fenced.set("edge:3", 0, "x")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> fenced.set("edge:3", -1, "x")).isInstanceOf(IllegalArgumentException.class);
        assertThat(redis.exists("edge:3")).isZero();
    }

    @Test
    void concurrentWritersWithShuffledTokensEndWithTheHighestTokensWrite() throws Exception {
        FencedRedis fenced = FencedRedis.on(redis);
        List<Long> tokens = new ArrayList<>();
        for (long token = 1; token <= 32; token++) {
            tokens.add(token);
        }
        Collections.shuffle(tokens, new Random(31));
        ExecutorService threads = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> writes = new ArrayList<>();
            for (long token : tokens) {
                writes.add(threads.submit(() -> {
                    try {
                        fenced.set("race:1", token, Long.toString(token));
                    } catch (StaleTokenException stale) {
                        assertThat(stale.highestSeen()).isGreaterThan(token);
                    }
                    return null;
                }));
            }
            for (Future<?> write : writes) {
                write.get(60, TimeUnit.SECONDS);
            }
        } finally {
            threads.shutdownNow();
        }
        assertThat(redis.get("race:1")).isEqualTo("32");
    }

    @Test
    void tokenKeysShareTheirKeysClusterSlot() {
        for (String key : List.of("order:1", "{user-7}:cart", "a{b}c", "stock:αβγ")) {
            assertThat(SlotHash.getSlot(FencedRedis.tokenKey(key))).as(key).isEqualTo(SlotHash.getSlot(key));
        }
        assertThatThrownBy(() -> FencedRedis.tokenKey("a}b")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("hash tag");
        assertThatThrownBy(() -> FencedRedis.tokenKey("{}x")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> FencedRedis.tokenKey(" ")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void onARedisClusterKeysInEverySlotAreFencedAndAFrozenHoldersLateWriteIsRefused() throws Exception {
        try (RedisClusterGroup cluster = RedisClusterGroup.launch()) {
            RedisClusterClient clusterClient = RedisClusterClient.create(cluster.seedUri());
            try (StatefulRedisClusterConnection<String, String> clusterConnection = clusterClient.connect()) {
                FencedRedis fenced = FencedRedis.on(clusterConnection.sync());
                for (int i = 0; i < 50; i++) {
                    String key = "order:" + i;
                    fenced.set(key, 10, "ten");
                    assertThatThrownBy(() -> fenced.set(key, 9, "nine")).isInstanceOf(StaleTokenException.class);
                    assertThat(clusterConnection.sync().get(key)).isEqualTo("ten");
                }
                // a holder JVM frozen past its lease on a lock in the cluster, writing once thawed
                String target = "redis-cluster://127.0.0.1:" + cluster.nodes().get(0).port();
                long[] newer = new long[1];
                String outcome = PausedHolder.lateWriteAfterANewerHolder(target, "order-late", List.of("redis-cluster", cluster.seedUri(), "order:late", "late"),
                        token -> {
                            newer[0] = token;
                            fenced.set("order:late", token, "newer");
                        });
                assertThat(outcome).isEqualTo("STALE " + newer[0]);
                assertThat(clusterConnection.sync().get("order:late")).isEqualTo("newer");
            } finally {
                clusterClient.shutdown();
            }
        }
    }
}
