package io.distlock.redis.testing;

import io.distlock.redis.testing.RedisClusterGroup;
import io.distlock.servers.BackendControl;
import io.distlock.testkit.DeploymentExtension;

/**
 * A Redis Cluster of three masters with one replica each for a test class; the target is a seed node's
 * URI, and faults hit every node at once.
 */
public final class RedisClusterExtension extends DeploymentExtension<RedisClusterGroup> {

    @Override
    protected RedisClusterGroup launch() {
        return RedisClusterGroup.launch();
    }

    @Override
    protected void shutDown(RedisClusterGroup running) {
        running.close();
    }

    /** Returns the running cluster. */
    public RedisClusterGroup cluster() {
        return servers();
    }

    @Override
    public String target() {
        return cluster().seedUri();
    }

    @Override
    public BackendControl control() {
        return cluster().control();
    }
}
