package io.distlock.jdbc.testing;

import io.distlock.servers.BackendControl;
import io.distlock.testkit.DeploymentExtension;

/** One {@link PostgresServer} for a test class; the target is its JDBC URL. */
public final class PostgresServerExtension extends DeploymentExtension<PostgresServer> {

    @Override
    protected PostgresServer launch() {
        return PostgresServer.launch();
    }

    @Override
    protected void shutDown(PostgresServer running) {
        running.close();
    }

    /** Returns the running server. */
    public PostgresServer server() {
        return servers();
    }

    @Override
    public String target() {
        return server().jdbcUrl();
    }

    @Override
    public BackendControl control() {
        return server();
    }
}
