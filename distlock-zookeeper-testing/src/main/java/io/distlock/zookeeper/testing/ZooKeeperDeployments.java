package io.distlock.zookeeper.testing;

import io.distlock.LockKind;
import io.distlock.servers.deployment.DeploymentProvider;
import io.distlock.servers.deployment.DeploymentType;
import io.distlock.servers.deployment.ServerType;
import java.util.EnumSet;
import java.util.List;

/**
 * The ZooKeeper deployment the checker can start and the server the benchmarks measure on: {@code zookeeper} (an in-process
 * ensemble for the checker; a server in a JVM of its own for the benchmarks).
 */
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
        // in a JVM of its own: the benchmarks measure the client's heap, which the server's nodes must not count in
        return List.of(ServerType.of("zookeeper", "one ZooKeeper server in a JVM of its own", () -> {
            ZooKeeperProcess server = ZooKeeperProcess.launch();
            return new ServerType.StartedServer("zk://" + server.connectString(), "", server::close);
        }));
    }
}
