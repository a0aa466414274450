package io.distlock.jdbc;

import io.distlock.testkit.BackendProviderContract;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The SQL provider on an H2 TCP server (the other databases share its code path: a JDBC URL). */
class JdbcBackendProviderTest extends BackendProviderContract {
    @RegisterExtension
    static final H2ServerExtension database = new H2ServerExtension();

    @Override
    protected String providerId() {
        return "jdbc";
    }

    @Override
    protected String registryTarget() {
        return database.target();
    }
}
