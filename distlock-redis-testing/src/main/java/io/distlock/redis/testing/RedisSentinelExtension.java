package io.distlock.redis.testing;

import io.distlock.redis.testing.RedisReplicaGroup;
import io.distlock.servers.BackendControl;
import io.distlock.testkit.DeploymentExtension;
import java.time.Duration;

/**
 * A Redis master with one replica and three Sentinels for a test class; the target is the Sentinel URI.
 * The Sentinels wait a minute before they declare the master down, so stopping, pausing or restarting
 * the master ({@link #control()}) is an outage, not a failover.
 */
public final class RedisSentinelExtension extends DeploymentExtension<RedisReplicaGroup> {

    @Override
    protected RedisReplicaGroup launch() {
        return RedisReplicaGroup.launch(1).withSentinels(3, Duration.ofSeconds(60));
    }

    @Override
    protected void shutDown(RedisReplicaGroup running) {
        running.close();
    }

    /** Returns the running group. */
    public RedisReplicaGroup group() {
        return servers();
    }

    @Override
    public String target() {
        return group().sentinelUri();
    }

    /** Returns the master (the group's first server): faults hit it only. */
    @Override
    public BackendControl control() {
        return group().servers().get(0);
    }
}
