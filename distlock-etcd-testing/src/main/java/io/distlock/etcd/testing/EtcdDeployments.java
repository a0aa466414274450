package io.distlock.etcd.testing;

import io.distlock.LockKind;
import io.distlock.servers.deployment.DeploymentProvider;
import io.distlock.servers.deployment.DeploymentType;
import io.distlock.servers.deployment.ServerType;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** The etcd deployment the checker can start and the server the benchmarks measure on: {@code etcd}, where an etcd binary is installed. */
public final class EtcdDeployments implements DeploymentProvider {
    /** For {@link java.util.ServiceLoader}. */
    public EtcdDeployments() {}

    @Override
    public List<DeploymentType> deployments() {
        return List.of(new DeploymentType("etcd", "a three-member etcd cluster (Debian's etcd-server, or DISTLOCK_ETCD)",
                Set.of(LockKind.values()), false,
                () -> EtcdBinary.available() ? Optional.empty()
                        : Optional.of("--backend etcd runs etcd processes, and no etcd binary was found: " + EtcdBinary.HOW_TO_INSTALL),
                EtcdDeployment::new));
    }

    @Override
    public List<ServerType> servers() {
        return List.of(new ServerType("etcd", "one etcd server (Debian's etcd-server, or DISTLOCK_ETCD)",
                () -> EtcdBinary.available() ? Optional.empty() : Optional.of("no etcd binary was found: " + EtcdBinary.HOW_TO_INSTALL),
                () -> {
                    EtcdCluster server = EtcdCluster.launch();
                    return new ServerType.StartedServer(server.registryTarget(), EtcdBinary.version(),
                            server::close);
                }));
    }
}
