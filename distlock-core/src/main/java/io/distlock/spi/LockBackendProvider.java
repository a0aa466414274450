package io.distlock.spi;

import io.distlock.BackendUnavailableException;
import io.distlock.DoctorCheck;
import io.distlock.Finding;
import io.distlock.LockClient;
import io.distlock.LockKind;
import io.distlock.OpenOptions;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * A backend as the registry ({@link io.distlock.LockClients}) sees it: found by {@link java.util.ServiceLoader}
 * (each backend jar lists its provider in {@code META-INF/services/io.distlock.spi.LockBackendProvider}), it says
 * what it is, which targets it understands and what it can do, and opens clients from a target.
 *
 * <p>Tools (the CLI, the checker, the benchmarks, Spring auto-configuration) read providers only, so that a new
 * backend is its own module and nothing else. Implementations need a public no-argument constructor, are
 * stateless and thread-safe.
 */
public interface LockBackendProvider {

    /** Returns the backend's id, lower case, unique among providers: {@code redis}, {@code zookeeper}... */
    String id();

    /** Returns one line for people: what the backend stores locks in and with which client library. */
    String description();

    /**
     * Returns the target schemes this backend opens, lower case, without the {@code :} that ends them:
     * {@code redis}, {@code rediss}, {@code zk}, {@code jdbc:postgresql}... A target belongs to the provider of
     * the longest scheme it starts with (followed by {@code :}).
     */
    List<String> schemes();

    /** Returns one example target per form this backend accepts, for help texts and errors. */
    List<String> exampleTargets();

    /** Returns the kinds of lock the backend stores; {@link LockKind#LOCK} always among them. By default that one only. */
    default Set<LockKind> kinds() {
        return EnumSet.of(LockKind.LOCK);
    }

    /** Returns whether the backend's clients have an {@link LockClient#inspector() inspector}; by default they have none. */
    default boolean hasInspector() {
        return false;
    }

    /**
     * Opens a client of this backend.
     *
     * @param target where the server is, in one of this provider's {@link #schemes()}; credentials and
     *     backend settings as the scheme allows (user info, query parameters)
     * @param options the namespace (where this client's locks live on the server: a Redis key prefix, a ZooKeeper
     *     or etcd namespace, an SQL table; clients of two namespaces never conflict) and the settings every
     *     backend's builder has ({@link io.distlock.spi.ClientBuilder#apply}); unset ones keep the backend's defaults
     * @throws IllegalArgumentException if the target or the namespace is malformed for this backend (a backend refuses a
     *     namespace that could overlap another's, such as a nested ZooKeeper or etcd path {@code x/inner}); the message
     *     names the problem and shows an accepted form
     * @throws io.distlock.BackendUnavailableException if the server cannot be reached in time
     * @throws io.distlock.LockException if the server refuses the client (credentials, permissions)
     */
    LockClient open(String target, OpenOptions options);

    /**
     * Examines {@code target}'s configuration for what bears on lock safety, read only (it changes nothing and takes no
     * lock), and returns the findings; empty if this backend has no doctor yet.
     *
     * @throws IllegalArgumentException if the target is malformed for this backend
     * @throws BackendUnavailableException if the server cannot be reached in time
     */
    default Optional<List<Finding>> diagnose(String target, OpenOptions options) {
        return Optional.empty();
    }

    /**
     * Returns the catalogue of what {@link #diagnose} examines, one entry per check id its findings carry; empty if this
     * backend has no doctor yet. The production checklist is printed from it.
     */
    default List<DoctorCheck> doctorChecks() {
        return List.of();
    }

    /**
     * Removes everything that clients of {@code options.namespace()} stored on {@code target}'s servers (locks, fencing
     * token counters, queues; a SQL namespace's table) and nothing outside it: for tools that work in a namespace of their
     * own on a user's server and must leave nothing behind ({@code distlock check --target}). Call it when no client of
     * the namespace runs any more: a live holder's lock would be removed under it.
     *
     * @return how many entries (keys, nodes, rows or tables) were removed
     * @throws IllegalArgumentException if {@code options} names no namespace: the default namespace is the application's,
     *     never removed
     * @throws UnsupportedOperationException if this backend cannot remove a namespace (the default)
     * @throws BackendUnavailableException if the server cannot be reached in time
     */
    default long removeNamespace(String target, OpenOptions options) {
        throw new UnsupportedOperationException("the " + id() + " backend cannot remove a namespace yet");
    }

    /** Opens a client of this backend whose locks live in {@code namespace}, or the default one if null; see {@link #open(String, OpenOptions)}. */
    default LockClient open(String target, @Nullable String namespace) {
        return open(target, OpenOptions.defaults().namespace(namespace));
    }
}
