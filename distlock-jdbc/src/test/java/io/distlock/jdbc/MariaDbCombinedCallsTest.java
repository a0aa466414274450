package io.distlock.jdbc;

import org.junit.jupiter.api.extension.RegisterExtension;

/** Combined calls on MariaDB: one UPDATE of the requested keys (values by CASE on the key), and a take's read of the fences it took. */
class MariaDbCombinedCallsTest extends CombinedCallsContract {
    @RegisterExtension
    static final MariaDbExtension database = new MariaDbExtension();

    @Override
    protected SqlDeployment database() {
        return database;
    }
}
