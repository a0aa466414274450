package io.distlock.shedlock;

import io.distlock.LockClient;
import io.distlock.jdbc.JdbcLockClient;
import io.distlock.jdbc.testing.PostgresServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** {@link DistlockLockProvider} on a real PostgreSQL server. */
class PostgresLockProviderTest extends LockProviderContract {
    private static PostgresServer postgres;

    @BeforeAll
    static void start() {
        postgres = PostgresServer.launch();
    }

    @AfterAll
    static void stop() {
        postgres.close();
    }

    @Override
    protected LockClient newClient() {
        return JdbcLockClient.create(postgres.jdbcUrl());
    }
}
