package io.distlock.servers.deployment;

import java.util.List;

/**
 * The deployments and plain servers of one backend's {@code -testing} module, found by {@link java.util.ServiceLoader} (listed in its
 * {@code META-INF/services/io.distlock.servers.deployment.DeploymentProvider}); {@link Deployments} reads them all.
 */
public interface DeploymentProvider {

    /** Returns the deployments this module can start, in the order help lists them. */
    List<DeploymentType> deployments();

    /** Returns the single servers this module can start for measuring (none by default). */
    default List<ServerType> servers() {
        return List.of();
    }
}
