package io.distlock.zookeeper.testing;

import io.distlock.LockKind;
import io.distlock.servers.deployment.DeploymentProvider;
import io.distlock.servers.deployment.DeploymentType;
import io.distlock.servers.deployment.ServerType;
import java.util.EnumSet;
import java.util.List;

/** The ZooKeeper deployment the checker can start and the server the benchmarks measure on: {@code zookeeper}. */
public final class ZooKeeperDeployments implements DeploymentProvider {
    /** For {@link java.util.ServiceLoader}. */
    public ZooKeeperDeployments() {}

    @Override
    public List<DeploymentType> deployments() {
        return List.of(DeploymentType.of("zookeeper", "a three-member in-process ZooKeeper ensemble", EnumSet.allOf(LockKind.class),
                ZooKeeperDeployment::new));
    }

    @Override
    public List<ServerType> servers() {
        return List.of(ServerType.of("zookeeper", "one in-process ZooKeeper server", () -> {
            ZooKeeperServer server = ZooKeeperServer.launch();
            return new ServerType.StartedServer("zk://" + server.connectString(), "", server::close);
        }));
    }
}
