package io.distlock.jdbc.testing;

import io.distlock.servers.BackendControl;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** A real MariaDB on a free port (as root when the tests run as root, which MariaDB allows when told). */
class MariaDbServerTest extends DatabaseServerContract {
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
    protected BackendControl server() {
        return mariadb;
    }

    @Override
    protected String jdbcUrl() {
        return mariadb.jdbcUrl();
    }

    @Override
    protected int port() {
        return mariadb.port();
    }

    @Override
    protected int defaultPort() {
        return 3306;
    }

    @Override
    protected boolean isRunning() {
        return mariadb.isRunning();
    }

    @Override
    protected String versionCheck() {
        return "SELECT VERSION() LIKE '11.4.%-MariaDB' AND DATABASE() = 'distlock'";
    }
}
