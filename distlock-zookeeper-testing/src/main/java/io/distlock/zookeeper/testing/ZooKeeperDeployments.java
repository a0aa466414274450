package io.distlock.zookeeper.testing;

import io.distlock.LockKind;
import io.distlock.servers.deployment.DeploymentProvider;
import io.distlock.servers.deployment.DeploymentType;
import java.util.EnumSet;
import java.util.List;

/** The ZooKeeper deployment the checker can start: {@code zookeeper}. */
public final class ZooKeeperDeployments implements DeploymentProvider {
    /** For {@link java.util.ServiceLoader}. */
    public ZooKeeperDeployments() {}

    @Override
    public List<DeploymentType> deployments() {
        return List.of(DeploymentType.of("zookeeper", "a three-member in-process ZooKeeper ensemble", EnumSet.allOf(LockKind.class),
                ZooKeeperDeployment::new));
    }
}
