package io.distlock.integration;

import io.distlock.LockClient;
import io.distlock.jdbc.JdbcLockClient;
import io.distlock.jdbc.testing.PostgresServerExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link DistlockLockRegistry} on a real PostgreSQL server. */
class PostgresLockRegistryTest extends LockRegistryContract {
    @RegisterExtension
    static final PostgresServerExtension postgres = new PostgresServerExtension();

    @Override
    protected LockClient newClient() {
        return JdbcLockClient.create(postgres.target());
    }

    @Override
    protected io.distlock.servers.BackendControl server() {
        return postgres.control();
    }
}
