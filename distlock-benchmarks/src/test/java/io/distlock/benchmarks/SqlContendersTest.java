package io.distlock.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.cli.bench.Contender;
import io.distlock.servers.PostgresServer;
import io.distlock.servers.TcpProxy;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The SQL contenders are locks (so their numbers mean something), on a real PostgreSQL. */
class SqlContendersTest {
    private static PostgresServer server;
    private static SqlContenders.Target target;

    @BeforeAll
    static void start() {
        server = PostgresServer.launch();
        target = new SqlContenders.Target("postgres", server.jdbcUrl());
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @ParameterizedTest
    @ValueSource(strings = {"distlock-jdbc", "shedlock-jdbc", "spring-jdbc"})
    void eachExcludesTheOtherThreadsOfItsClient(String id) throws Exception {
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        AtomicInteger cycles = new AtomicInteger();
        try (Contender contender = SqlContenders.create(id, target)) {
            assertThat(contender.id()).isEqualTo(id + "/postgres");
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

    @ParameterizedTest
    @ValueSource(strings = {"distlock-jdbc", "shedlock-jdbc"})
    void roundTripsOfAnUncontendedCycleAreCounted(String id) throws Exception {
        try (TcpProxy proxy = TcpProxy.to(target.port()); Contender contender = SqlContenders.create(id, target.viaPort(proxy.port()))) {
            for (int i = 0; i < 20; i++) {
                contender.cycle("counted");
            }
            long before = proxy.roundTrips();
            for (int i = 0; i < 100; i++) {
                contender.cycle("counted");
            }
            double perCycle = (proxy.roundTrips() - before) / 100.0;
            if (id.startsWith("distlock")) {
                // one UPDATE to acquire, one to release, on the client's own connection
                assertThat(perCycle).isBetween(2.0, 2.1);
            } else {
                // BEGIN+UPDATE, then COMMIT, for each (pgjdbc); Hikari adds a validation query to a connection
                // idle for over 500 ms and opens its minimum idle connections in the background, so on a
                // loaded machine a few more round trips land in the count
                assertThat(perCycle).isBetween(4.0, 6.0);
            }
        }
    }
}
