package io.distlock.fencing.sql;

import io.distlock.jdbc.testing.PostgresServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The SQL fencing guards on a real PostgreSQL on a free port. */
class PostgresFencingTest extends SqlFencingContract {
    private static PostgresServer postgres;

    @BeforeAll
    static void launch() {
        postgres = PostgresServer.launch();
    }

    @AfterAll
    static void close() {
        postgres.close();
    }

    @Override
    protected String jdbcUrl() {
        return postgres.jdbcUrl();
    }
}
