package io.distlock.benchmarks;

import io.distlock.cli.bench.Contender;
import io.distlock.redis.testing.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The Redis lock contenders are locks across the threads of one client (so their c16 numbers mean something). */
class RedisContendersTest {
    private static RedisServer redis;

    @BeforeAll
    static void start() {
        redis = RedisServer.launch();
    }

    @AfterAll
    static void stop() {
        redis.close();
    }

    @ParameterizedTest
    @ValueSource(strings = {"distlock-redis", "distlock-fair", "redisson-rlock", "redisson-fair", "textbook-setnx"})
    void eachExcludesTheOtherThreadsOfItsClient(String id) throws Exception {
        try (Contender contender = Contenders.create(id, new Contenders.Targets(redis.uri(), null, null))) {
            ContenderExclusion.assertExcludesItsThreads(contender);
        }
    }
}
