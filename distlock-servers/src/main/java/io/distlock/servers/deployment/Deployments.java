package io.distlock.servers.deployment;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.function.Function;
import java.util.stream.Collectors;

/** The deployments and plain servers of every {@code -testing} module on the class path, by id. */
public final class Deployments {
    private Deployments() {}

    /** Returns every deployment type on the class path, by id. */
    public static List<DeploymentType> all() {
        return load(DeploymentProvider::deployments, DeploymentType::id);
    }

    /** Collects what every provider on the class path names, sorted by id. */
    private static <T> List<T> load(Function<DeploymentProvider, List<T>> named, Function<T, String> id) {
        List<T> all = new ArrayList<>();
        ServiceLoader.load(DeploymentProvider.class, Deployments.class.getClassLoader()).forEach(provider -> all.addAll(named.apply(provider)));
        all.sort(Comparator.comparing(id));
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

    /** Returns every plain server on the class path, by id. */
    public static List<ServerType> servers() {
        return load(DeploymentProvider::servers, ServerType::id);
    }

    /**
     * Returns the plain server with this id.
     *
     * @throws IllegalArgumentException naming the known ids, if none has it
     */
    public static ServerType server(String id) {
        List<ServerType> all = servers();
        return all.stream().filter(type -> type.id().equals(id)).findFirst().orElseThrow(() -> new IllegalArgumentException(
                "unknown server '" + id + "'; known: " + all.stream().map(ServerType::id).collect(Collectors.joining(", "))));
    }
}
