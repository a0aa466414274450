package io.distlock.shedlock;

import io.distlock.LockClient;
import io.distlock.jdbc.JdbcLockClient;
import io.distlock.jdbc.testing.PostgresServerExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link DistlockLockProvider} on a real PostgreSQL server. */
class PostgresLockProviderTest extends LockProviderContract {
    @RegisterExtension
    static final PostgresServerExtension postgres = new PostgresServerExtension();

    @Override
    protected LockClient newClient() {
        return JdbcLockClient.create(postgres.target());
    }
}
