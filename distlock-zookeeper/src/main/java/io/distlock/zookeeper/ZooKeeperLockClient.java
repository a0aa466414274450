package io.distlock.zookeeper;

import io.distlock.BackendUnavailableException;
import io.distlock.LockClient;
import io.distlock.LockInspector;
import io.distlock.LockOptions;
import io.distlock.spi.ClientBuilder;
import io.distlock.spi.ForwardingLockClient;
import io.distlock.spi.LockEngine;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.jspecify.annotations.Nullable;

/**
 * A {@link LockClient} on ZooKeeper, over the Curator framework, with distlock's own recipe: each
 * waiter is an ephemeral-sequential node under {@code /<namespace>/<lock name>/}, the lowest node
 * holds the lock, and each waiter watches only the node ahead of it. Locks are fair (first come,
 * first served across all clients) and die with the session of a crashed holder.
 *
 * <pre>{@code
 * try (LockClient locks = ZooKeeperLockClient.create("zk1:2181,zk2:2181,zk3:2181")) {
 *     try (Lease lease = locks.getLock("orders:42").acquire(Duration.ofSeconds(5))) {
 *         // pass lease.fencingToken() (the node's czxid) to the resource you protect
 *     }
 * }
 * }</pre>
 *
 * <h2>How {@link LockOptions} map onto ZooKeeper</h2>
 * The node lives as long as the session, not as long as {@code leaseTime}. {@code leaseTime} is how
 * long the holder trusts its lock without a confirmed check: the watchdog checks every
 * {@code leaseTime / 3} that the node still exists (a force-unlock deletes it), and if no check is
 * confirmed within {@code leaseTime} the lease is lost and the node deleted. With
 * {@code autoRenew(false)} the lock is held for at most {@code leaseTime}, then released. Session
 * events act at once: on SUSPENDED the lease is lost (or, with {@code waitForReconnect(true)}, not
 * trusted until RECONNECTED), and on LOST (session expired) it is lost.
 *
 * <p>A lease is never longer than the session timeout the server negotiated (servers cap the
 * requested timeout, by default between 2 and 20 ticks): a holder paused past its session has lost its
 * node while a longer lease would still look valid. The default lease is that negotiated timeout; a
 * longer {@code leaseTime}, on the builder or per lock, is refused with IllegalArgumentException.
 */
public final class ZooKeeperLockClient extends ForwardingLockClient {
    /** The default namespace (root node), {@code distlock}. */
    public static final String DEFAULT_NAMESPACE = "distlock";
    /** The default session timeout, 15 seconds. */
    public static final Duration DEFAULT_SESSION_TIMEOUT = Duration.ofSeconds(15);
    /** The default connection and operation timeout, 3 seconds. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(3);

    private final String description;
    private final CuratorFramework curator;
    private final LockInspector inspector;
    private final ZooKeeperLockBackend backend;

    private ZooKeeperLockClient(LockClient engine, String description, CuratorFramework curator, LockInspector inspector,
            ZooKeeperLockBackend backend) {
        super(engine);
        this.description = description;
        this.curator = curator;
        this.inspector = inspector;
        this.backend = backend;
    }

    /**
     * Returns an inspector of every lock in this client's namespace, of every client: names, kinds, holders with
     * their tokens (ZooKeeper locks last as long as their holder's session, so no lease time), waiters.
     */
    @Override
    public Optional<LockInspector> inspector() {
        return Optional.of(inspector);
    }

    /** Returns the Curator client this lock client runs on (for tests that expire its session). */
    CuratorFramework curator() {
        return curator;
    }

    /** Returns the storage operations (for tests: their seams and retained state). */
    ZooKeeperLockBackend backend() {
        return backend;
    }

    /**
     * Connects to the ensemble {@code connectString} ({@code host:port[,host:port...]}) with the defaults.
     *
     * @throws IllegalArgumentException if the connect string is blank
     * @throws BackendUnavailableException if no server answers within the connection timeout
     */
    public static ZooKeeperLockClient create(String connectString) {
        return builder().connectString(connectString).build();
    }

    /** Returns a builder for a client with non-default settings. */
    public static Builder builder() {
        return new Builder();
    }

    @Override
    public String toString() {
        return "ZooKeeperLockClient[" + description + "]";
    }

    /** Builds a {@link ZooKeeperLockClient}; every setter validates its argument at once. */
    public static final class Builder extends ClientBuilder<Builder> {
        private @Nullable String connectString;
        private @Nullable CuratorFramework curator;
        private String namespace = DEFAULT_NAMESPACE;
        private Duration sessionTimeout = DEFAULT_SESSION_TIMEOUT;
        private Duration connectionTimeout = DEFAULT_TIMEOUT;
        private @Nullable String digest;
        private boolean waitForReconnect;

        /** Defaults: lease time = the negotiated session timeout (renewed), operation timeout 3 s. */
        private Builder() {
            super(LockOptions.builder().leaseTime(DEFAULT_SESSION_TIMEOUT).build(), DEFAULT_TIMEOUT);
        }

        @Override
        protected Builder self() {
            return this;
        }

        /** Sets the ensemble, {@code host:port[,host:port...]}; or use {@link #curator}. */
        public Builder connectString(String connectString) {
            if (connectString == null || connectString.isBlank()) {
                throw new IllegalArgumentException("connectString must not be blank");
            }
            this.connectString = connectString;
            return this;
        }

        /**
         * Uses an existing, started CuratorFramework instead of connecting; the client does not close it.
         * Its namespace is used as is, unchecked (give it one segment, as {@link #namespace} requires);
         * {@link #namespace} and the timeouts other than the operation timeout do not apply.
         */
        public Builder curator(CuratorFramework curator) {
            if (curator == null) {
                throw new IllegalArgumentException("curator must not be null");
            }
            this.curator = curator;
            return this;
        }

        /**
         * Sets the root node of all locks (default {@code distlock}), {@code /<namespace>} under the chroot: one segment
         * of letters, digits, '-' and '_', so that no namespace's node is another's lock queue. A '/' is refused: the
         * node of namespace {@code x/inner} would be the queue of lock {@code inner} of namespace {@code x}, whose
         * clients would take its nodes for their own; use {@code x-inner}, or nest with a chroot in the connect string
         * ({@code host:2181/app}, a node that no client without that chroot uses as its namespace).
         *
         * @throws IllegalArgumentException if {@code namespace} is not one such segment
         */
        public Builder namespace(String namespace) {
            this.namespace = ZooKeeperNamespaces.check(namespace);
            return this;
        }

        /**
         * Sets the session timeout to ask for (default 15 s): how long a crashed holder's lock survives it.
         * The server negotiates it into its own bounds (by default 2 to 20 ticks); leases never exceed
         * what it negotiated.
         */
        public Builder sessionTimeout(Duration sessionTimeout) {
            this.sessionTimeout = positive(sessionTimeout, "sessionTimeout");
            return this;
        }

        /** Sets how long connecting may take (default 3 s). */
        public Builder connectionTimeout(Duration connectionTimeout) {
            this.connectionTimeout = positive(connectionTimeout, "connectionTimeout");
            return this;
        }

        /**
         * Authenticates with digest {@code user:password}; nodes are then created readable and
         * writable by that identity only (CREATOR_ALL_ACL).
         */
        public Builder digest(String userColonPassword) {
            if (userColonPassword == null || !userColonPassword.contains(":")) {
                throw new IllegalArgumentException("digest must be 'user:password'");
            }
            this.digest = userColonPassword;
            return this;
        }

        /**
         * With true, a SUSPENDED connection makes leases untrusted ({@code isValid()} false) until
         * RECONNECTED instead of lost. Default false, as Curator advises for locks.
         */
        public Builder waitForReconnect(boolean waitForReconnect) {
            this.waitForReconnect = waitForReconnect;
            return this;
        }

        /**
         * Connects and returns the client.
         *
         * @throws IllegalArgumentException if neither a connect string nor a Curator client was set
         * @throws BackendUnavailableException if no server answers within the connection timeout
         */
        public ZooKeeperLockClient build() {
            CuratorFramework client = curator;
            boolean owns = client == null;
            String ensemble;
            if (client == null) {
                if (connectString == null) {
                    throw new IllegalArgumentException("connectString (or curator) must be set");
                }
                ensemble = connectString;
                CuratorFrameworkFactory.Builder factory = CuratorFrameworkFactory.builder()
                        .connectString(connectString)
                        .namespace(namespace)
                        .sessionTimeoutMs((int) sessionTimeout.toMillis())
                        .connectionTimeoutMs((int) connectionTimeout.toMillis())
                        .retryPolicy(new ExponentialBackoffRetry(50, 3, 500));
                if (digest != null) {
                    factory.authorization("digest", digest.getBytes(StandardCharsets.UTF_8))
                            .aclProvider(new CreatorOnlyAcls());
                }
                client = factory.build();
                client.start();
                try {
                    if (!client.blockUntilConnected((int) connectionTimeout.toMillis(), TimeUnit.MILLISECONDS)) {
                        client.close();
                        throw new BackendUnavailableException("cannot connect to ZooKeeper at " + connectString
                                + " within " + connectionTimeout, null);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    client.close();
                    throw new BackendUnavailableException("interrupted while connecting to ZooKeeper at " + connectString, e);
                }
            } else {
                if (client.getState() != CuratorFrameworkState.STARTED) {
                    throw new IllegalArgumentException("the CuratorFramework must be started");
                }
                ensemble = client.getZookeeperClient().getCurrentConnectionString();
            }
            ZooKeeperLockBackend backend = new ZooKeeperLockBackend(client, owns, ensemble, operationTimeout(), !waitForReconnect);
            try {
                if (!lockOptionsSet()) {
                    defaultLockOptions(lockOptions().toBuilder().leaseTime(backend.negotiatedSessionTimeout()).build());
                }
                return new ZooKeeperLockClient(LockEngine.newClient(backend, engineSettings("distlock-zookeeper")), backend.describe(), client,
                        new ZooKeeperLockInspector(backend), backend);
            } catch (RuntimeException e) {
                backend.close();
                throw e;
            }
        }
    }

    /** Nodes readable and writable only by the authenticated creator. */
    private static final class CreatorOnlyAcls implements org.apache.curator.framework.api.ACLProvider {
        @Override
        public List<ACL> getDefaultAcl() {
            return ZooDefs.Ids.CREATOR_ALL_ACL;
        }

        @Override
        public List<ACL> getAclForPath(String path) {
            return ZooDefs.Ids.CREATOR_ALL_ACL;
        }
    }
}
