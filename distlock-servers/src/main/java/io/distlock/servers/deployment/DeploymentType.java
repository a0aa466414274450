package io.distlock.servers.deployment;

import io.distlock.LockKind;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * One deployment a backend's {@code -testing} module can start for the checker ({@code distlock check --backend ID}).
 *
 * @param id the name on the command line ({@code redis}, {@code sentinel}, {@code zookeeper}, ...)
 * @param description one line for help: what runs
 * @param kinds the kinds of lock its backend has
 * @param takesMinReplicas whether {@code --min-replicas} applies (replicas that acknowledge writes)
 * @param unavailable why it cannot start on this machine (a binary not installed), or empty; asked before any server runs
 * @param factory makes a deployment for a run; no server starts before {@link Deployment#start}
 */
public record DeploymentType(String id, String description, Set<LockKind> kinds, boolean takesMinReplicas,
        Supplier<Optional<String>> unavailable, Function<DeploymentSettings, Deployment> factory) {

    /** Copies the kinds. */
    public DeploymentType {
        kinds = Set.copyOf(kinds);
    }

    /** A deployment that can start wherever its module is on the class path and takes no {@code --min-replicas}. */
    public static DeploymentType of(String id, String description, Set<LockKind> kinds, Function<DeploymentSettings, Deployment> factory) {
        return new DeploymentType(id, description, kinds, false, Optional::empty, factory);
    }

    /** Returns a deployment of this type for a run. */
    public Deployment create(DeploymentSettings settings) {
        return factory.apply(settings);
    }
}
