package io.distlock.servers.deployment;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
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

    /** Returns the deployment type with this id (ids are lower case; case and surrounding blanks are ignored), if any. */
    public static Optional<DeploymentType> find(String id) {
        String wanted = id.trim().toLowerCase(Locale.ROOT);
        return all().stream().filter(type -> type.id().equals(wanted)).findFirst();
    }

    /**
     * Returns the deployment type with this id.
     *
     * @throws IllegalArgumentException naming the known ids, if none has it
     */
    public static DeploymentType byId(String id) {
        return find(id).orElseThrow(() -> new IllegalArgumentException("unknown deployment '" + id + "'; known: " + ids()));
    }

    /** Returns the ids of every deployment on the class path, comma-separated, for messages. */
    public static String ids() {
        return all().stream().map(DeploymentType::id).collect(Collectors.joining(", "));
    }
}
