package io.distlock.jdbc;

import org.junit.jupiter.api.extension.RegisterExtension;

/** The SQL lock contract against a real PostgreSQL server. */
class PostgresLockContractTest extends SqlLockContract {
    @RegisterExtension
    static final PostgresExtension database = new PostgresExtension();

    @Override
    protected SqlDeployment database() {
        return database;
    }
}
