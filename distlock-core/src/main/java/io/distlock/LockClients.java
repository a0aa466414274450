package io.distlock;

import io.distlock.spi.LockBackendProvider;
import io.distlock.spi.TargetUri;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * Opens a {@link LockClient} from a target URI, on whichever backend on the classpath understands it:
 * {@code LockClients.open("redis://127.0.0.1:6379")}, {@code LockClients.open("zk://zk1:2181,zk2:2181")},
 * {@code LockClients.open("jdbc:postgresql://db/app?user=app")}. Each backend module registers a
 * {@link LockBackendProvider}; {@link #providers()} lists them.
 *
 * <p>A backend's own factory ({@code RedisLockClient.builder()}...) offers every setting; a target offers what fits
 * in a URI, which is what tools and configuration files need.
 */
public final class LockClients {
    private LockClients() {}

    /**
     * Opens a client for {@code target} with the backend's default namespace.
     *
     * @throws IllegalArgumentException if the target is null or blank, no backend on the classpath understands
     *     its scheme (the message lists the schemes that are), or the backend finds it malformed
     * @throws BackendUnavailableException if the server cannot be reached in time
     * @throws LockException if the server refuses the client
     */
    public static LockClient open(String target) {
        return open(target, OpenOptions.defaults());
    }

    /**
     * Opens a client for {@code target} whose locks live in {@code namespace} (a Redis key prefix, a ZooKeeper or
     * etcd namespace, an SQL table), or in the backend's default namespace if it is null.
     *
     * @throws IllegalArgumentException as {@link #open(String)}, or if the namespace is malformed for the backend
     * @throws BackendUnavailableException if the server cannot be reached in time
     * @throws LockException if the server refuses the client
     */
    public static LockClient open(String target, @Nullable String namespace) {
        return open(target, OpenOptions.defaults().namespace(namespace));
    }

    /**
     * Opens a client for {@code target} set up with {@code options}: its namespace, default lock options, operation
     * timeout, fallback poll and listeners, each left at the backend's default where not set.
     *
     * @throws IllegalArgumentException as {@link #open(String, String)}, or if {@code options} is null
     * @throws BackendUnavailableException if the server cannot be reached in time
     * @throws LockException if the server refuses the client
     */
    public static LockClient open(String target, OpenOptions options) {
        if (options == null) {
            throw new IllegalArgumentException("options must not be null; OpenOptions.defaults() leaves everything at the backend's defaults");
        }
        return providerFor(target).open(target, options);
    }

    /**
     * Examines {@code target}'s configuration for what bears on lock safety, read only, with the options the
     * application would use (its target parameters, such as {@code minReplicas}, count); see {@link Finding}.
     *
     * @throws IllegalArgumentException as {@link #open(String)}
     * @throws UnsupportedOperationException if the target's backend has no doctor yet (the message names it)
     * @throws BackendUnavailableException if the server cannot be reached in time
     */
    public static List<Finding> diagnose(String target, OpenOptions options) {
        if (options == null) {
            throw new IllegalArgumentException("options must not be null; OpenOptions.defaults() leaves everything at the backend's defaults");
        }
        LockBackendProvider provider = providerFor(target);
        return provider.diagnose(target, options).orElseThrow(() -> new UnsupportedOperationException("the " + provider.id()
                + " backend has no doctor yet: nothing can be examined on " + TargetUri.mask(target)));
    }

    /**
     * Returns the provider that opens {@code target}: the one with the longest scheme the target starts with.
     *
     * @throws IllegalArgumentException if the target is null or blank, or no provider understands it
     */
    public static LockBackendProvider providerFor(String target) {
        if (target == null || target.isBlank()) {
            throw new IllegalArgumentException("target must not be blank; it is a URI such as " + examples(providers()));
        }
        String lower = target.toLowerCase(Locale.ROOT);
        LockBackendProvider best = null;
        int bestLength = -1;
        List<LockBackendProvider> providers = providers();
        for (LockBackendProvider provider : providers) {
            for (String scheme : provider.schemes()) {
                if (scheme.length() > bestLength && lower.startsWith(scheme + ":")) {
                    best = provider;
                    bestLength = scheme.length();
                }
            }
        }
        if (best == null) {
            throw new IllegalArgumentException("no backend on the classpath opens '" + TargetUri.mask(target) + "': "
                    + (providers.isEmpty() ? "there is none (add distlock-redis, distlock-zookeeper, distlock-etcd or distlock-jdbc)"
                            : "known schemes are " + providers.stream().flatMap(p -> p.schemes().stream()).map(s -> s + ":")
                                    .collect(Collectors.joining(", "))));
        }
        return best;
    }

    /**
     * Returns the provider with this id.
     *
     * @throws IllegalArgumentException if no provider on the classpath has it (the message lists the ids there are)
     */
    public static LockBackendProvider provider(String id) {
        return find(id).orElseThrow(() -> new IllegalArgumentException("unknown backend '" + id + "': "
                + (providers().isEmpty() ? "there is none on the classpath" : "known are " + ids())));
    }

    /** Returns the provider with this id, if one is on the classpath. */
    public static Optional<LockBackendProvider> find(@Nullable String id) {
        if (id == null) {
            return Optional.empty();
        }
        String lower = id.toLowerCase(Locale.ROOT);
        return providers().stream().filter(provider -> provider.id().equals(lower)).findFirst();
    }

    /**
     * Returns the providers on the classpath (of the context class loader, else of this class's), sorted by id.
     *
     * @throws IllegalStateException if two providers share an id, or one cannot be loaded (the message names it)
     */
    public static List<LockBackendProvider> providers() {
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        Map<String, LockBackendProvider> byId = new LinkedHashMap<>();
        try {
            for (LockBackendProvider provider : ServiceLoader.load(LockBackendProvider.class,
                    loader != null ? loader : LockClients.class.getClassLoader())) {
                LockBackendProvider other = byId.putIfAbsent(provider.id(), provider);
                if (other != null && other.getClass() != provider.getClass()) {
                    throw new IllegalStateException("two backends have the id '" + provider.id() + "': " + other.getClass().getName()
                            + " and " + provider.getClass().getName());
                }
            }
        } catch (ServiceConfigurationError e) {
            throw new IllegalStateException("a distlock backend on the classpath cannot be loaded: " + e.getMessage(), e);
        }
        List<LockBackendProvider> sorted = new ArrayList<>(byId.values());
        sorted.sort(Comparator.comparing(LockBackendProvider::id));
        return List.copyOf(sorted);
    }

    private static String ids() {
        return providers().stream().map(LockBackendProvider::id).collect(Collectors.joining(", "));
    }

    private static String examples(List<LockBackendProvider> providers) {
        return providers.isEmpty() ? "redis://host:6379" : providers.stream().flatMap(p -> p.exampleTargets().stream().limit(1))
                .collect(Collectors.joining(", "));
    }
}
