package io.distlock.jdbc;

import org.junit.jupiter.api.extension.RegisterExtension;

/** Combined calls on PostgreSQL: {@code UPDATE ... FROM unnest(...) RETURNING}, one statement each. */
class PostgresCombinedCallsTest extends CombinedCallsContract {
    @RegisterExtension
    static final PostgresExtension database = new PostgresExtension();

    @Override
    protected SqlDeployment database() {
        return database;
    }
}
