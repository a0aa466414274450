package io.distlock.jdbc;

import io.distlock.servers.BackendControl;
import io.distlock.servers.MariaDbServer;
import io.distlock.testkit.DeploymentExtension;

/** One real MariaDB server for a test class. */
final class MariaDbExtension extends DeploymentExtension<MariaDbServer> implements SqlDeployment {

    @Override
    protected MariaDbServer launch() {
        return MariaDbServer.launch();
    }

    @Override
    protected void shutDown(MariaDbServer running) {
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
        return "UTC_TIMESTAMP(6)";
    }

    @Override
    public String killSession() {
        return "KILL ?";
    }

    @Override
    public String sessionId() {
        return "SELECT CONNECTION_ID()";
    }

    @Override
    public String otherSessions() {
        return "SELECT id FROM information_schema.processlist WHERE db = DATABASE() AND id <> CONNECTION_ID()";
    }
}
