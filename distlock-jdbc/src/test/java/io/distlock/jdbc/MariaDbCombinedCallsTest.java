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

    /** The running combined UPDATEs of the tests' user (INNODB_TRX would need the PROCESS privilege). */
    @Override
    protected String rowLockWaitsQuery() {
        return "SELECT count(*) FROM information_schema.PROCESSLIST WHERE COMMAND = 'Query' AND INFO LIKE 'UPDATE % WHERE lock_key IN (%'";
    }
}
