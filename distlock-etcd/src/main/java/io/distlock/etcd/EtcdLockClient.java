package io.distlock.etcd;

import io.distlock.BackendUnavailableException;
import io.distlock.LockClient;
import io.distlock.LockException;
import io.distlock.LockInspector;
import io.distlock.LockOptions;
import io.distlock.spi.ClientBuilder;
import io.distlock.spi.ForwardingLockClient;
import io.distlock.spi.LockEngine;
import io.etcd.jetcd.Client;
import java.net.InetAddress;
import java.net.URI;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * A {@link LockClient} on etcd v3, over jetcd, with the recipe of etcd's own {@code concurrency.Mutex}:
 * each waiter puts a key {@code <namespace>/<lock name>/<lease>-<client>-<number>} on the client's session lease,
 * the key with the lowest create revision holds the lock, and each waiter watches only the key created
 * just before its own. Locks are fair (first come, first served across all clients) and die with the
 * session lease of a crashed holder. The fencing token is the holder key's create revision, which grows
 * with every successive holder, across restarts and leader elections.
 *
 * <pre>{@code
 * try (LockClient locks = EtcdLockClient.create("http://etcd1:2379,http://etcd2:2379,http://etcd3:2379")) {
 *     try (Lease lease = locks.getLock("orders:42").acquire(Duration.ofSeconds(5))) {
 *         // pass lease.fencingToken() (the key's create revision) to the resource you protect
 *     }
 * }
 * }</pre>
 *
 * <h2>How {@link LockOptions} map onto etcd</h2>
 * The key lives as long as the session lease, which the client keeps alive every TTL/3 (default TTL
 * 15 s). {@code leaseTime} is how long the holder trusts its lock without a confirmed renewal: the
 * watchdog confirms every {@code leaseTime / 3} that the key still exists and keeps the session alive,
 * and if no renewal is confirmed within {@code leaseTime} the lease is lost and the key deleted. If no
 * keep-alive of the session is confirmed for two thirds of its TTL, the client's leases are not trusted
 * ({@code isValid()} false) until one is; if none is confirmed within the TTL, or etcd says the lease is
 * gone, every lock of the client is lost at once (reason SESSION_LOST), and every waiter joins the queue
 * again on a new session lease (losing its place). A {@code leaseTime} longer than the session TTL is
 * refused: a holder paused past its session has lost its key while a longer lease would still look valid.
 */
public final class EtcdLockClient extends ForwardingLockClient {
    /** The default key prefix, {@code distlock}. */
    public static final String DEFAULT_NAMESPACE = "distlock";
    /** The default session lease TTL, 15 seconds: how long a crashed holder's lock outlives it. */
    public static final Duration DEFAULT_SESSION_TTL = Duration.ofSeconds(15);
    /** The default operation timeout, 3 seconds. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(3);

    private final String description;
    private final EtcdLockBackend backend;

    private EtcdLockClient(LockClient engine, String description, EtcdLockBackend backend) {
        super(engine);
        this.description = description;
        this.backend = backend;
    }

    /**
     * Connects to {@code endpoints} ({@code http://host:port[,http://host:port...]}) with the defaults.
     *
     * @throws IllegalArgumentException if the endpoints are blank or not URLs
     * @throws BackendUnavailableException if no endpoint answers within the operation timeout
     */
    public static EtcdLockClient create(String endpoints) {
        return builder().endpoints(endpoints).build();
    }

    /** Returns a builder for a client with non-default settings. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Returns an inspector of every lock in this client's namespace, of every client: names, kinds, holders with their
     * tokens (etcd keys last as long as their holder's session, so no lease time), waiters; read in one range read.
     */
    @Override
    public Optional<LockInspector> inspector() {
        return Optional.of(new EtcdLockInspector(backend));
    }

    /** The backend under the engine (for tests that drive it directly). */
    EtcdLockBackend backend() {
        return backend;
    }

    /** Returns the id of the client's current session lease, 0 if it has none (for tests and operators). */
    long sessionLease() {
        return backend.session().currentLease();
    }

    @Override
    public String toString() {
        return "EtcdLockClient[" + description + "]";
    }

    /** Builds an {@link EtcdLockClient}; every setter validates its argument at once. */
    public static final class Builder extends ClientBuilder<Builder> {
        private @Nullable List<URI> endpoints;
        private @Nullable Client client;
        private String namespace = DEFAULT_NAMESPACE;
        private Duration sessionTtl = DEFAULT_SESSION_TTL;
        private @Nullable String user;
        private @Nullable String password;

        /** Defaults: lease time = the granted session TTL (renewed), operation timeout 3 s. */
        private Builder() {
            super(LockOptions.builder().leaseTime(DEFAULT_SESSION_TTL).build(), DEFAULT_TIMEOUT);
        }

        @Override
        protected Builder self() {
            return this;
        }

        /** Sets the endpoints, {@code http://host:port[,http://host:port...]} ({@code https://} with {@link #client}); or use {@link #client}. */
        public Builder endpoints(String endpoints) {
            if (endpoints == null || endpoints.isBlank()) {
                throw new IllegalArgumentException("endpoints must not be blank");
            }
            List<URI> parsed = Arrays.stream(endpoints.split(",")).map(String::trim).filter(s -> !s.isEmpty()).map(endpoint -> {
                URI uri;
                try {
                    uri = URI.create(endpoint);
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("endpoint '" + endpoint + "' must look like http://host:port (" + e.getMessage() + ")", e);
                }
                if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme()) || uri.getHost() == null || uri.getPort() < 0) {
                    throw new IllegalArgumentException("endpoint '" + endpoint + "' must look like http://host:port");
                }
                return uri;
            }).toList();
            if (parsed.isEmpty()) {
                throw new IllegalArgumentException("endpoints must name at least one http://host:port, was '" + endpoints + "'");
            }
            this.endpoints = parsed;
            return this;
        }

        /**
         * Uses an existing jetcd client instead of connecting (for TLS, or any setting of jetcd's own
         * builder); the lock client does not close it. Endpoints, user and password do not apply.
         */
        public Builder client(Client client) {
            if (client == null) {
                throw new IllegalArgumentException("client must not be null");
            }
            this.client = client;
            return this;
        }

        /**
         * Sets the key prefix of all locks (default {@code distlock}): one segment of letters, digits, '-' and '_', so
         * that the keys of two namespaces never meet. A '/' is refused: the keys of namespace {@code x/inner} would lie
         * under the prefix of lock {@code inner} of namespace {@code x} ({@code x/inner/}), which would see them as its
         * own (taken, and freed by its force unlock); use {@code x-inner}.
         *
         * @throws IllegalArgumentException if {@code namespace} is not one such segment
         */
        public Builder namespace(String namespace) {
            String segment = "[A-Za-z0-9_\\-]+";
            if (namespace == null || !namespace.matches(segment)) {
                throw new IllegalArgumentException(namespaceRefusal(namespace, segment));
            }
            this.namespace = namespace;
            return this;
        }

        private static String namespaceRefusal(@Nullable String namespace, String segment) {
            List<String> parts = namespace == null ? List.of() : Arrays.stream(namespace.split("/")).filter(s -> !s.isEmpty()).toList();
            if (parts.size() < 2 || !parts.stream().allMatch(part -> part.matches(segment))) {
                return "namespace must be one segment of letters, digits, '-' or '_', was '" + namespace + "'";
            }
            return "namespace '" + namespace + "' must be one segment of letters, digits, '-' or '_', for example '" + String.join("-", parts)
                    + "': the keys of a namespace with '/' lie under the prefix of lock '" + parts.get(1) + "' of namespace '" + parts.get(0)
                    + "' (" + parts.get(0) + "/" + parts.get(1) + "/), whose clients would take them for their own";
        }

        /**
         * Sets the TTL of the session lease (default 15 s, whole seconds, at least 2): how long a crashed
         * holder's lock outlives it. etcd may raise a TTL below its minimum; leases never exceed what it granted.
         */
        public Builder sessionTtl(Duration sessionTtl) {
            positive(sessionTtl, "sessionTtl");
            if (sessionTtl.compareTo(Duration.ofSeconds(2)) < 0) {
                throw new IllegalArgumentException("sessionTtl must be at least 2 s (etcd counts it in whole seconds), was " + sessionTtl);
            }
            this.sessionTtl = sessionTtl;
            return this;
        }

        /** Authenticates as {@code user}; its role must allow reading and writing the namespace's keys. */
        public Builder credentials(String user, String password) {
            if (user == null || user.isBlank()) {
                throw new IllegalArgumentException("user must not be blank");
            }
            if (password == null) {
                throw new IllegalArgumentException("password must not be null");
            }
            this.user = user;
            this.password = password;
            return this;
        }

        /**
         * Connects, grants the session lease and returns the client.
         *
         * @throws IllegalArgumentException if neither endpoints nor a jetcd client were set
         * @throws BackendUnavailableException if etcd does not answer within the operation timeout
         * @throws LockException if etcd refuses (for example, wrong credentials)
         */
        public EtcdLockClient build() {
            Client etcd = client;
            boolean owns = etcd == null;
            String where;
            if (etcd == null) {
                EtcdConnection connection = connection();
                where = connection.where();
                etcd = connection.connect();
            } else {
                where = "a jetcd client";
            }
            ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1, runnable -> {
                Thread thread = new Thread(runnable, "distlock-etcd-session");
                thread.setDaemon(true);
                return thread;
            });
            scheduler.setRemoveOnCancelPolicy(true);
            EtcdSession session = new EtcdSession(etcd.getLeaseClient(), sessionTtl, scheduler, System::nanoTime, where);
            EtcdLockBackend backend = new EtcdLockBackend(etcd, owns, new LockKeys(namespace), session, where, operationTimeout(),
                    scheduler, ownerDescription());
            try {
                firstLease(session, where);
                if (!lockOptionsSet()) {
                    defaultLockOptions(lockOptions().toBuilder().leaseTime(session.ttl()).build());
                }
                return new EtcdLockClient(LockEngine.newClient(backend, engineSettings("distlock-etcd")), backend.describe(), backend);
            } catch (RuntimeException e) {
                backend.close();
                throw e;
            }
        }

        /**
         * Returns how {@link #build()} connects: the endpoints, the credentials and the operation timeout.
         *
         * @throws IllegalArgumentException if no endpoints were set
         */
        EtcdConnection connection() {
            if (endpoints == null) {
                throw new IllegalArgumentException("endpoints (or client) must be set");
            }
            return new EtcdConnection(endpoints, user, password == null ? "" : password, operationTimeout());
        }

        /** Returns the session TTL {@link #build()} asks etcd for. */
        Duration requestedSessionTtl() {
            return sessionTtl;
        }

        /** Returns the keys of the namespace. */
        LockKeys keys() {
            return new LockKeys(namespace);
        }

        /** Returns the lease time the caller set, or empty when the lease is the granted session TTL (the default). */
        Optional<Duration> leaseTimeSet() {
            return lockOptionsSet() ? Optional.of(lockOptions().leaseTime()) : Optional.empty();
        }

        private void firstLease(EtcdSession session, String where) {
            // the first connection also resolves names and authenticates: give it at least 10 s, as a cold JVM needs
            Duration wait = operationTimeout().compareTo(Duration.ofSeconds(10)) < 0 ? Duration.ofSeconds(10) : operationTimeout();
            try {
                session.lease().get(wait.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new BackendUnavailableException("interrupted while connecting to etcd at " + where, e);
            } catch (TimeoutException e) {
                throw new BackendUnavailableException("cannot reach etcd at " + where + " within " + wait, e);
            } catch (ExecutionException e) {
                throw new EtcdErrors(where).translate(e.getCause() == null ? e : e.getCause(), "connecting (granting the session lease)", "-");
            }
        }

        private static String ownerDescription() {
            String host;
            try {
                host = InetAddress.getLocalHost().getHostName();
            } catch (Exception e) {
                host = "unknown-host";
            }
            return "distlock host=" + host + " pid=" + ProcessHandle.current().pid();
        }
    }
}
