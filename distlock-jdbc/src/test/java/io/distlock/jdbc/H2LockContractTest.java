package io.distlock.jdbc;

import org.junit.jupiter.api.extension.RegisterExtension;

/** The SQL lock contract against an H2 TCP server in this JVM, on a file database. */
class H2LockContractTest extends SqlLockContract {
    @RegisterExtension
    static final H2ServerExtension database = new H2ServerExtension();

    @Override
    protected SqlDeployment database() {
        return database;
    }
}
