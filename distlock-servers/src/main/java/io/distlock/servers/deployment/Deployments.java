package io.distlock.servers.deployment;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.ServiceLoader;
import java.util.stream.Collectors;

/** The deployments of every {@code -testing} module on the class path, by id. */
public final class Deployments {
    private Deployments() {}

    /** Returns every deployment type on the class path, by id. */
    public static List<DeploymentType> all() {
        List<DeploymentType> all = new ArrayList<>();
        ServiceLoader.load(DeploymentProvider.class, Deployments.class.getClassLoader()).forEach(provider -> all.addAll(provider.deployments()));
        all.sort(Comparator.comparing(DeploymentType::id));
        return all;
    }

    /**
     * Returns the deployment type with this id.
     *
     * @throws IllegalArgumentException naming the known ids, if none has it
     */
    public static DeploymentType byId(String id) {
        List<DeploymentType> all = all();
        return all.stream().filter(type -> type.id().equals(id)).findFirst().orElseThrow(() -> new IllegalArgumentException(
                "--backend must be one of " + all.stream().map(DeploymentType::id).collect(Collectors.joining(", ")) + ", was '" + id + "'"));
    }
}
