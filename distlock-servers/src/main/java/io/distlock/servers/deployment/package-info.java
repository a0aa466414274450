/**
 * The deployments the checker can start and fault, as each backend's {@code -testing} module provides them: a
 * {@link io.distlock.servers.deployment.DeploymentProvider} found by {@link java.util.ServiceLoader} names its
 * {@link io.distlock.servers.deployment.DeploymentType}s, {@link io.distlock.servers.deployment.Deployments} finds them
 * by id, and workers open their clients through the registry. The command line names no backend class.
 */
@NullMarked
package io.distlock.servers.deployment;

import org.jspecify.annotations.NullMarked;
