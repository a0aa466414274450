package io.distlock.testkit;

import io.distlock.servers.BackendControl;
import io.distlock.servers.ZooKeeperServer;

/** One in-process {@link ZooKeeperServer} for a test class; the target is its connect string. */
public final class ZooKeeperServerExtension extends DeploymentExtension<ZooKeeperServer> {

    @Override
    protected ZooKeeperServer launch() {
        return ZooKeeperServer.launch();
    }

    @Override
    protected void shutDown(ZooKeeperServer running) {
        running.close();
    }

    /** Returns the running server. */
    public ZooKeeperServer server() {
        return servers();
    }

    @Override
    public String target() {
        return server().connectString();
    }

    @Override
    public BackendControl control() {
        return server();
    }
}
