package io.distlock.integration;

import io.distlock.LockClient;
import io.distlock.jdbc.JdbcLockClient;
import io.distlock.jdbc.testing.PostgresServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** {@link DistlockLockRegistry} on a real PostgreSQL server. */
class PostgresLockRegistryTest extends LockRegistryContract {
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
