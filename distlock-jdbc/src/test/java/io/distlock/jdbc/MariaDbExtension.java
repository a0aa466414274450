package io.distlock.jdbc;

import io.distlock.servers.MariaDbServer;

/** One real MariaDB server for a test class. */
final class MariaDbExtension extends DatabaseExtension<MariaDbServer> {

    @Override
    protected MariaDbServer launch() {
        return MariaDbServer.launch();
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
}
