package io.distlock.redis.testing;

import io.distlock.redis.testing.RedisServer;
import io.distlock.servers.BackendControl;
import io.distlock.testkit.DeploymentExtension;

/** One standalone {@link RedisServer} for a test class; the target is its URI. */
public final class RedisServerExtension extends DeploymentExtension<RedisServer> {

    @Override
    protected RedisServer launch() {
        return RedisServer.launch();
    }

    @Override
    protected void shutDown(RedisServer running) {
        running.close();
    }

    /** Returns the running server. */
    public RedisServer server() {
        return servers();
    }

    @Override
    public String target() {
        return server().uri();
    }

    @Override
    public BackendControl control() {
        return server();
    }
}
