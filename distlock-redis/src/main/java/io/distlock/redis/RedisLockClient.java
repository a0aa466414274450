package io.distlock.redis;

import io.distlock.BackendUnavailableException;
import io.distlock.LockClient;
import io.distlock.LockInspector;
import io.distlock.LockException;
import io.distlock.LockOptions;
import io.distlock.spi.ClientBuilder;
import io.distlock.spi.ForwardingLockClient;
import io.distlock.spi.LockEngine;
import io.lettuce.core.resource.ClientResources;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A {@link LockClient} on Redis (standalone, through Sentinel, or a Cluster; 5.0 or newer, 7.0 for Cluster), over Lettuce: one multiplexed command
 * connection and one pub/sub connection, shared by all locks of the client.
 *
 * <pre>{@code
 * try (LockClient locks = RedisLockClient.create("redis://127.0.0.1:6379")) {
 *     DistributedLock lock = locks.getLock("orders:42");
 *     try (Lease lease = lock.acquire(Duration.ofSeconds(5))) {
 *         // critical section; pass lease.fencingToken() to the resource you protect
 *     }
 * }
 * }</pre>
 *
 * <p>Each lock is one key, {@code <prefix>{<name>}} (default prefix {@code distlock:}; a {@code '}'} in
 * the name is stored as U+001A), whose value is {@code <fencing token>:<owner id>} and whose PX expiry
 * is the lease. Releases publish on {@code <prefix>{<name>}:released}. {@link RedisKeys} spells the
 * layout out for tools. An ACL user needs {@code ~<prefix>*}, {@code &<prefix>*} and the
 * commands EVALSHA, EVAL, GET, SUBSCRIBE, UNSUBSCRIBE (on a Cluster SSUBSCRIBE, SUNSUBSCRIBE and CLUSTER
 * for topology discovery; with {@code minReplicas}, WAIT). See docs/guarantees.md for what holds under
 * pauses, crashes, restarts and failover.
 */
public final class RedisLockClient extends ForwardingLockClient {
    /** The default key prefix, {@code distlock:}. */
    public static final String DEFAULT_KEY_PREFIX = "distlock:";
    /** The default operation timeout, 3 seconds. */
    public static final Duration DEFAULT_OPERATION_TIMEOUT = Duration.ofSeconds(3);

    private final String server;
    private final String keyPrefix;
    private final RedisLockInspector inspector;

    private RedisLockClient(LockClient engine, String server, String keyPrefix, RedisLockInspector inspector) {
        super(engine);
        this.server = server;
        this.keyPrefix = keyPrefix;
        this.inspector = inspector;
    }

    /**
     * Connects to Redis at {@code uri} with the default settings, e.g. {@code redis://127.0.0.1:6379},
     * {@code redis://user:secret@host:6379/0} or {@code rediss://host:6380} for TLS.
     *
     * @throws IllegalArgumentException if the URI is malformed or not a redis/rediss URI
     * @throws BackendUnavailableException if Redis cannot be reached within the connect timeout
     * @throws LockException if Redis refuses the connection (for example, wrong credentials)
     * @throws IllegalStateException if the netty on the classpath cannot carry the Lettuce on it (modules of
     *     different netty versions, or Lettuce 7 on netty 4.1); the message names the jars and the fix
     */
    public static RedisLockClient create(String uri) {
        return builder().uri(uri).build();
    }

    /** Returns a builder for a client with non-default settings. */
    public static Builder builder() {
        return new Builder();
    }

    /** Returns the key prefix this client's locks live under. */
    public String keyPrefix() {
        return keyPrefix;
    }

    /**
     * Returns an inspector of every lock under this client's key prefix, of every client (not only this one's):
     * names, kinds, holders with tokens and lease left, waiters. For operators and tools; each call scans the keys.
     */
    @Override
    public Optional<LockInspector> inspector() {
        return Optional.of(inspector);
    }

    /** Returns where this client's locks live in Redis: their keys and release channels. */
    public RedisKeys keys() {
        return RedisKeys.withPrefix(keyPrefix);
    }

    @Override
    public String toString() {
        return "RedisLockClient[" + server + ", prefix=" + keyPrefix + "]";
    }

    /** Builds a {@link RedisLockClient}; every setter validates its argument at once. */
    public static final class Builder extends ClientBuilder<Builder> {
        private @Nullable String uri;
        private String keyPrefix = DEFAULT_KEY_PREFIX;
        private Duration connectTimeout = DEFAULT_OPERATION_TIMEOUT;
        private @Nullable String clientName;
        private int minReplicas;
        private boolean cluster;
        private Duration replicaAckTimeout = Duration.ofSeconds(1);
        private @Nullable ClientResources clientResources;

        /** Defaults: {@link LockOptions#defaults()}, operation timeout 3 s. */
        private Builder() {
            super(LockOptions.defaults(), DEFAULT_OPERATION_TIMEOUT);
        }

        @Override
        protected Builder self() {
            return this;
        }

        /**
         * Sets the Redis URI (required): {@code redis://[user:password@]host[:port][/db]}, {@code rediss://...} for
         * TLS (the server's certificate and host name are checked against the JVM's trust store), or
         * {@code redis-sentinel://[password@]host1:port1[,host2:port2...][/db]#masterName} to find the master
         * through Sentinel (the client asks the Sentinels again whenever it reconnects, so it follows a
         * failover without a restart).
         */
        public Builder uri(String uri) {
            if (uri == null || uri.isBlank()) {
                throw new IllegalArgumentException("uri must not be blank");
            }
            String scheme = uri.toLowerCase(Locale.ROOT);
            if (!scheme.startsWith("redis://") && !scheme.startsWith("rediss://") && !scheme.startsWith("redis-sentinel://")
                    && !scheme.startsWith("rediss-sentinel://")) {
                throw new IllegalArgumentException("uri must start with redis://, rediss://, redis-sentinel:// or rediss-sentinel://, was '"
                        + RedisConnector.mask(uri) + "'");
            }
            this.uri = uri;
            return this;
        }

        /** Sets the key prefix (default {@code distlock:}); it must not contain braces. */
        public Builder keyPrefix(String keyPrefix) {
            this.keyPrefix = RedisKeys.checkPrefix(keyPrefix);
            return this;
        }

        /** Sets how long connecting may take (default 3 s). */
        public Builder connectTimeout(Duration connectTimeout) {
            this.connectTimeout = positive(connectTimeout, "connectTimeout");
            return this;
        }

        /**
         * Makes every acquire, renewal, release and force-unlock wait (Redis WAIT) until at least
         * {@code minReplicas} replicas have the write, and treats a missing acknowledgement as a failure
         * of the operation: an acquire is rolled back and fails with {@link BackendUnavailableException},
         * a renewal counts as failed (the lease is lost if none is acknowledged in time), a release throws
         * after releasing on the master. Default 0 (no waiting). This protects a lock across a failover to
         * a replica that acknowledged it; it does not make replication synchronous or Redis a consensus
         * system (see docs/guarantees.md). WAIT blocks the client's shared connection while it waits.
         */
        public Builder minReplicas(int minReplicas) {
            if (minReplicas < 0 || minReplicas > 100) {
                throw new IllegalArgumentException("minReplicas must be between 0 and 100, was " + minReplicas);
            }
            this.minReplicas = minReplicas;
            return this;
        }

        /** Sets how long an operation waits for replica acknowledgements (default 1 s); must be below half the operation timeout. */
        public Builder replicaAckTimeout(Duration replicaAckTimeout) {
            this.replicaAckTimeout = positive(replicaAckTimeout, "replicaAckTimeout");
            return this;
        }

        /**
         * Treats the URI as a seed node of a Redis Cluster (default false): the client discovers the
         * topology, routes each lock to the master of its slot (every key of a lock shares one slot
         * through a hash tag), follows MOVED/ASK redirects and failovers, and wakes waiters with sharded
         * pub/sub (SSUBSCRIBE/SPUBLISH, Redis 7.0 or newer), so a release is heard only on its shard.
         * Replica acknowledgement ({@link #minReplicas}) is not supported in cluster mode.
         */
        public Builder cluster(boolean cluster) {
            this.cluster = cluster;
            return this;
        }

        /**
         * Runs the client on an application's Lettuce resources (its event loops, executor and timer; for
         * example the {@code ClientResources} bean Spring Boot configures) instead of starting threads of its
         * own. The client keeps its own reconnect delay (10 ms doubling to 1 s, since leases are seconds long)
         * and its own event bus, and leaves the shared threads running when it is closed: close the client
         * before shutting the resources down.
         */
        public Builder clientResources(ClientResources clientResources) {
            if (clientResources == null) {
                throw new IllegalArgumentException("clientResources must not be null");
            }
            this.clientResources = clientResources;
            return this;
        }

        /** Sets the connection name shown by CLIENT LIST (default: none). */
        public Builder clientName(String clientName) {
            if (clientName == null || clientName.isBlank() || clientName.contains(" ")) {
                throw new IllegalArgumentException("clientName must be non-blank without spaces, was '" + clientName + "'");
            }
            this.clientName = clientName;
            return this;
        }

        /**
         * Connects and returns the client.
         *
         * @throws IllegalArgumentException if no URI was set or it cannot be parsed
         * @throws BackendUnavailableException if Redis cannot be reached within the connect timeout
         * @throws LockException if Redis refuses the connection (for example, wrong credentials)
         * @throws IllegalStateException if the netty on the classpath cannot carry the Lettuce on it (see {@link #create})
         */
        public RedisLockClient build() {
            RedisLockBackend backend = openBackend();
            try {
                return new RedisLockClient(LockEngine.newClient(backend, engineSettings("distlock-redis")), backend.describe(), keyPrefix,
                        backend.inspector(keyPrefix));
            } catch (RuntimeException e) {
                backend.close();
                throw e;
            }
        }

        /**
     * Returns how long a waiter of a fair lock, read-write lock or semaphore stays queued without checking its
     * turn: three fallback polls (a waiter checks at least once per poll), at least {@link RedisQueues#MIN_HEARTBEAT}.
     */
    private Duration waiterHeartbeat() {
        Duration three = fallbackPoll().multipliedBy(3);
        return three.compareTo(RedisQueues.MIN_HEARTBEAT) < 0 ? RedisQueues.MIN_HEARTBEAT : three;
    }

    /** Connects and returns the backend alone (RedLock opens one per node). */
        RedisLockBackend openBackend() {
            RedisConnector.Settings settings = settings();
            NettyClasspath.check(); // before the first netty class loads, so a mixed classpath gets a message, not a linkage error
            return RedisConnector.open(settings);
        }

        /** Returns the connection settings, after checking that they fit together. */
        RedisConnector.Settings settings() {
            if (uri == null) {
                throw new IllegalArgumentException("uri must be set");
            }
            if (minReplicas > 0 && replicaAckTimeout.multipliedBy(2).compareTo(operationTimeout()) > 0) {
                throw new IllegalArgumentException("replicaAckTimeout (" + replicaAckTimeout + ") must be at most half the operationTimeout ("
                        + operationTimeout() + "): an acknowledged write needs the command, WAIT and a possible rollback to fit in it");
            }
            if (cluster && minReplicas > 0) {
                throw new IllegalArgumentException("minReplicas is not supported with cluster(true): WAIT would have to go to the "
                        + "master of each lock's slot");
            }
            if (cluster && uri.toLowerCase(Locale.ROOT).contains("-sentinel://")) {
                throw new IllegalArgumentException("cluster(true) needs a redis:// or rediss:// seed node, not a Sentinel URI");
            }
            return new RedisConnector.Settings(uri, keyPrefix, operationTimeout(), connectTimeout, clientName,
                    new ReplicaAcks(minReplicas, replicaAckTimeout), cluster, clientResources, waiterHeartbeat());
        }
    }
}
