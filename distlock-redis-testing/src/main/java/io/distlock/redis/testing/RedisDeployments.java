package io.distlock.redis.testing;

import io.distlock.LockKind;
import io.distlock.servers.deployment.DeploymentProvider;
import io.distlock.servers.deployment.DeploymentType;
import io.distlock.servers.deployment.ServerType;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;

/** The Redis deployments the checker can start: {@code redis}, {@code sentinel}, {@code cluster}, {@code redlock}. */
public final class RedisDeployments implements DeploymentProvider {
    /** For {@link java.util.ServiceLoader}. */
    public RedisDeployments() {}

    @Override
    public List<DeploymentType> deployments() {
        return List.of(
                DeploymentType.of("redis", "one redis-server, a replica for promotion, one proxy per client", EnumSet.allOf(LockKind.class),
                        RedisDeployment::new),
                new DeploymentType("sentinel", "a master, two replicas and three Sentinels; clients find the master through Sentinel",
                        EnumSet.allOf(LockKind.class), true, Optional::empty, SentinelDeployment::new),
                DeploymentType.of("cluster", "a Redis Cluster of three masters and three replicas; clients in cluster mode",
                        EnumSet.allOf(LockKind.class), ClusterDeployment::new),
                DeploymentType.of("redlock", "five independent masters with RedLock", EnumSet.of(LockKind.LOCK), RedLockDeployment::new));
    }

    @Override
    public List<ServerType> servers() {
        return List.of(ServerType.of("redis", "one redis-server", () -> {
            RedisServer server = RedisServer.launch();
            return new ServerType.StartedServer(server.uri(), "", server::close);
        }));
    }
}
