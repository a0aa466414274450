package io.distlock.etcd;

import io.distlock.DoctorCheck;
import io.distlock.Finding;
import io.distlock.LockClient;
import io.distlock.LockKind;
import io.distlock.OpenOptions;
import io.distlock.spi.LockBackendProvider;
import io.distlock.spi.TargetParameters;
import io.distlock.spi.TargetUri;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * etcd in the registry: {@code etcd://[user:password@]host:port[,host:port...]}, plain HTTP/2 to every endpoint
 * (for TLS, build the client with {@link EtcdLockClient.Builder#client} and a jetcd client of your own). The
 * namespace is the key prefix of the locks, {@code <namespace>/}: one segment of letters, digits, '-' and '_' (a '/' is
 * refused, see {@link EtcdLockClient.Builder#namespace}), so no namespace's keys lie under another's.
 */
public final class EtcdBackendProvider implements LockBackendProvider {
    private static final String FORM = "etcd://[user:password@]host:port[,host:port...][?sessionTtl=4s]";

    /** For {@link java.util.ServiceLoader}. */
    public EtcdBackendProvider() {}

    @Override
    public String id() {
        return "etcd";
    }

    @Override
    public String description() {
        return "etcd v3 cluster (jetcd); one session lease per client, waiters ordered by create revision";
    }

    /** Every kind: plain and fair locks, read-write locks, semaphores. */
    @Override
    public Set<LockKind> kinds() {
        return EnumSet.allOf(LockKind.class);
    }

    @Override
    public boolean hasInspector() {
        return true;
    }

    @Override
    public List<String> schemes() {
        return List.of("etcd");
    }

    @Override
    public List<String> exampleTargets() {
        return List.of("etcd://host:2379[,host:2379...]", "etcd://user:password@host:2379");
    }

    @Override
    public LockClient open(String target, OpenOptions options) {
        return builder(target, options).build();
    }

    /** Reads the configuration (members, leader, session TTL against the election timeout, authentication, alarms). */
    @Override
    public Optional<List<Finding>> diagnose(String target, OpenOptions options) {
        return Optional.of(EtcdDoctor.diagnose(target, options));
    }

    @Override
    public List<DoctorCheck> doctorChecks() {
        return EtcdDoctor.CHECKS;
    }

    /**
     * Removes every lock key of the namespace (the queue keys of every kind, {@code <namespace>/...}) and nothing outside
     * it, connected as {@link #open} connects (endpoints, credentials, the options' timeout). Keys of another namespace
     * are never touched, not even of one that starts with the same letters ({@code ab} for {@code a}), nor keys under
     * {@code <namespace>/} of another shape (an application's). There is nothing else to remove: the fencing token is a
     * key's revision, not a counter.
     * The session leases of the namespace's clients are not revoked: they carry only the keys removed here, and expire
     * within their TTL once their clients stopped (a client still running keeps its lease, and loses its locks).
     *
     * @return how many keys etcd deleted (0 for a namespace whose clients released everything)
     * @throws IllegalArgumentException if the options name no namespace (the default one is the application's), or the
     *     target or the namespace is malformed (empty, blank, not one segment of letters, digits, '-' or '_')
     * @throws io.distlock.BackendUnavailableException if no endpoint answers in time
     * @throws io.distlock.LockException if etcd refuses the reads or deletes (credentials, the user's role)
     */
    @Override
    public long removeNamespace(String target, OpenOptions options) {
        return EtcdNamespaces.remove(target, options);
    }

    /**
     * Returns the builder of the client {@code open} builds for {@code target} and {@code options}; the doctor connects
     * with the same.
     *
     * @throws IllegalArgumentException if the target or an option is malformed
     */
    static EtcdLockClient.Builder builder(String target, OpenOptions options) {
        TargetParameters parameters = TargetParameters.takeAll(target, Set.of("sessionTtl"), FORM);
        TargetUri parsed = TargetUri.parse(parameters.target(), FORM);
        if (!parsed.path().isEmpty() && !parsed.path().equals("/")) {
            throw new IllegalArgumentException("target '" + TargetUri.mask(target) + "' must look like " + FORM
                    + ": an etcd target has no path (the namespace is given apart)");
        }
        EtcdLockClient.Builder builder = EtcdLockClient.builder()
                .endpoints(parsed.hosts().stream().map(host -> "http://" + host).collect(Collectors.joining(",")));
        if (parsed.user() != null) {
            builder.credentials(parsed.user(), parsed.password() == null ? "" : parsed.password());
        }
        parameters.duration("sessionTtl").ifPresent(builder::sessionTtl);
        options.namespace().ifPresent(builder::namespace);
        return builder.apply(options);
    }
}
