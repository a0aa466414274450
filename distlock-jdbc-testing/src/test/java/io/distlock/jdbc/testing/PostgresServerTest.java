package io.distlock.jdbc.testing;

import io.distlock.servers.BackendControl;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** A real PostgreSQL on a free port (as user nobody when the tests run as root). */
class PostgresServerTest extends DatabaseServerContract {
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
    protected BackendControl server() {
        return postgres;
    }

    @Override
    protected String jdbcUrl() {
        return postgres.jdbcUrl();
    }

    @Override
    protected int port() {
        return postgres.port();
    }

    @Override
    protected int defaultPort() {
        return 5432;
    }

    @Override
    protected boolean isRunning() {
        return postgres.isRunning();
    }

    @Override
    protected String versionCheck() {
        return "SELECT current_setting('server_version_num')::int >= 170000 AND clock_timestamp() IS NOT NULL";
    }
}
