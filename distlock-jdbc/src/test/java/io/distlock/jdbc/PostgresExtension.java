package io.distlock.jdbc;

import io.distlock.servers.BackendControl;
import io.distlock.servers.PostgresServer;
import io.distlock.testkit.DeploymentExtension;

/** One real PostgreSQL server for a test class (as user nobody when the tests run as root). */
final class PostgresExtension extends DeploymentExtension<PostgresServer> implements SqlDeployment {

    @Override
    protected PostgresServer launch() {
        return PostgresServer.launch();
    }

    @Override
    protected void shutDown(PostgresServer running) {
        running.close();
    }

    @Override
    public String target() {
        return servers().jdbcUrl();
    }

    @Override
    public BackendControl control() {
        return servers();
    }

    @Override
    public String now() {
        return "clock_timestamp()";
    }

    @Override
    public String killSession() {
        return "SELECT pg_terminate_backend(?)";
    }

    @Override
    public String sessionId() {
        return "SELECT pg_backend_pid()";
    }

    @Override
    public String otherSessions() {
        return "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()";
    }
}
