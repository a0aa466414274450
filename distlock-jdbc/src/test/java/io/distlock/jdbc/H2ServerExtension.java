package io.distlock.jdbc;

import io.distlock.servers.H2Server;

/** An {@link H2Server}: an H2 TCP server in this JVM on a file database, behind a proxy for pauses. */
final class H2ServerExtension extends DatabaseExtension<H2Server> {

    @Override
    protected H2Server launch() {
        return H2Server.launch();
    }

    @Override
    public String now() {
        return "CURRENT_TIMESTAMP(6)";
    }

    @Override
    public String killSession() {
        return "CALL ABORT_SESSION(?)";
    }

    @Override
    public String sessionId() {
        return "SELECT SESSION_ID()";
    }
}
