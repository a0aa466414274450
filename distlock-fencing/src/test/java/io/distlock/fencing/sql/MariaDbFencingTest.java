package io.distlock.fencing.sql;

import io.distlock.jdbc.testing.MariaDbServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The SQL fencing guards on a real MariaDB on a free port. */
class MariaDbFencingTest extends SqlFencingContract {
    private static MariaDbServer mariadb;

    @BeforeAll
    static void launch() {
        mariadb = MariaDbServer.launch();
    }

    @AfterAll
    static void close() {
        mariadb.close();
    }

    @Override
    protected String jdbcUrl() {
        return mariadb.jdbcUrl();
    }
}
