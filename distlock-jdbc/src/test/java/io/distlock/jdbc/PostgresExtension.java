package io.distlock.jdbc;

import io.distlock.servers.PostgresServer;

/** One real PostgreSQL server for a test class (as user nobody when the tests run as root). */
final class PostgresExtension extends DatabaseExtension<PostgresServer> {

    @Override
    protected PostgresServer launch() {
        return PostgresServer.launch();
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
}
