package io.distlock.servers.deployment;

import java.time.Duration;

/**
 * What a {@link Deployment} needs to know about the run.
 *
 * @param processes how many client processes there are (one proxy each, where the deployment has proxies)
 * @param lease the lease time of the checked lock
 * @param minReplicas replicas that must acknowledge each lock write (deployments with replicas only)
 */
public record DeploymentSettings(int processes, Duration lease, int minReplicas) {}
