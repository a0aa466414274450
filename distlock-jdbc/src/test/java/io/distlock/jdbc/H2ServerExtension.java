package io.distlock.jdbc;

import io.distlock.servers.BackendControl;
import io.distlock.servers.H2Server;
import io.distlock.testkit.DeploymentExtension;

/** An {@link H2Server}: an H2 TCP server in this JVM on a file database, behind a proxy for pauses. */
final class H2ServerExtension extends DeploymentExtension<H2Server> implements SqlDeployment {

    @Override
    protected H2Server launch() {
        return H2Server.launch();
    }

    @Override
    protected void shutDown(H2Server server) {
        server.close();
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

    @Override
    public String otherSessions() {
        return "SELECT session_id FROM information_schema.sessions WHERE session_id <> SESSION_ID()";
    }
}
