package io.distlock.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.cli.bench.Contender;
import io.distlock.jdbc.testing.PostgresServer;
import io.distlock.servers.TcpProxy;
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
        try (Contender contender = SqlContenders.create(id, target)) {
            assertThat(contender.id()).isEqualTo(id + "/postgres");
            ContenderExclusion.assertExcludesItsThreads(contender);
        }
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
