package io.distlock.redis.testing;

import io.distlock.redis.testing.RedisServer;
import io.distlock.servers.BackendControl;
import io.distlock.testkit.DeploymentExtension;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Independent Redis masters for RedLock, for a test class; the target is their comma-separated URIs,
 * and faults hit every node at once.
 */
public final class RedLockExtension extends DeploymentExtension<List<RedisServer>> {
    private final int nodes;

    /** Starts {@code nodes} masters per test class. */
    public RedLockExtension(int nodes) {
        if (nodes < 1) {
            throw new IllegalArgumentException("nodes must be positive, was " + nodes);
        }
        this.nodes = nodes;
    }

    @Override
    protected List<RedisServer> launch() {
        List<RedisServer> started = new ArrayList<>();
        try {
            for (int i = 0; i < nodes; i++) {
                started.add(RedisServer.launch());
            }
            return List.copyOf(started);
        } catch (RuntimeException e) {
            started.forEach(RedisServer::close);
            throw e;
        }
    }

    @Override
    protected void shutDown(List<RedisServer> running) {
        running.forEach(RedisServer::close);
    }

    /** Returns the running nodes. */
    public List<RedisServer> nodes() {
        return servers();
    }

    @Override
    public String target() {
        return nodes().stream().map(RedisServer::uri).collect(Collectors.joining(","));
    }

    @Override
    public BackendControl control() {
        return BackendControl.allOf(nodes(), () -> { });
    }
}
