package io.distlock.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.cli.bench.Contender;
import io.distlock.servers.RedisServer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
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
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        AtomicInteger cycles = new AtomicInteger();
        try (Contender contender = Contenders.create(id, new Contenders.Targets(redis.uri(), null, null))) {
            List<Thread> threads = new ArrayList<>();
            List<Throwable> failures = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                Thread thread = new Thread(() -> {
                    try {
                        for (int i = 0; i < 25; i++) {
                            contender.lock("shared");
                            if (inside.incrementAndGet() > 1) {
                                overlaps.incrementAndGet();
                            }
                            Thread.sleep(1);
                            inside.decrementAndGet();
                            contender.unlock("shared");
                            cycles.incrementAndGet();
                        }
                    } catch (Throwable e) {
                        synchronized (failures) {
                            failures.add(e);
                        }
                    }
                });
                threads.add(thread);
                thread.start();
            }
            for (Thread thread : threads) {
                thread.join(60_000);
            }
            assertThat(failures).isEmpty();
        }
        assertThat(cycles).hasValue(100);
        assertThat(overlaps).as("two threads inside the lock at once").hasValue(0);
    }
}
