package io.distlock.jdbc;

import org.junit.jupiter.api.extension.RegisterExtension;

/** The SQL lock contract against a real MariaDB server. */
class MariaDbLockContractTest extends SqlLockContract {
    @RegisterExtension
    static final MariaDbExtension database = new MariaDbExtension();

    @Override
    protected SqlDeployment database() {
        return database;
    }
}
