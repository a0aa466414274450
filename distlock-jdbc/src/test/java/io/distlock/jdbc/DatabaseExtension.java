package io.distlock.jdbc;

import io.distlock.jdbc.testing.DatabaseServer;
import io.distlock.servers.BackendControl;
import io.distlock.testkit.DeploymentExtension;

/** One database server for a test class; subclasses say how to start it and the SQL the tests need. */
abstract class DatabaseExtension<S extends DatabaseServer> extends DeploymentExtension<S> implements SqlDeployment {

    @Override
    protected void shutDown(S running) {
        running.close();
    }

    @Override
    public String target() {
        return servers().jdbcUrl();
    }

    @Override
    public int port() {
        return servers().port();
    }

    @Override
    public BackendControl control() {
        return servers();
    }

    @Override
    public String otherSessions() {
        return servers().otherSessionsQuery();
    }

    /** Returns the target with another port and another user, given how the target names its user. */
    protected final String replaceUserAndPort(String userParameter, String user, int port) {
        String url = target().replace(":" + port() + "/", ":" + port + "/");
        return url.replace(userParameter, userParameter.substring(0, userParameter.indexOf('=') + 1) + user);
    }
}
