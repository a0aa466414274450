package io.distlock.fencing.sql;

import io.distlock.jdbc.testing.H2Server;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The SQL fencing guards on H2 behind a TCP server on a free port. */
class H2FencingTest extends SqlFencingContract {
    private static H2Server h2;

    @BeforeAll
    static void launch() {
        h2 = H2Server.launch();
    }

    @AfterAll
    static void close() {
        h2.close();
    }

    @Override
    protected String jdbcUrl() {
        return h2.jdbcUrl();
    }
}
