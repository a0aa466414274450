package io.distlock.redis;

import io.distlock.BackendUnavailableException;
import io.distlock.LockException;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.pubsub.StatefulRedisClusterPubSubConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Connects a {@link RedisLockBackend} over Lettuce: to one server or a master found through Sentinel
 * (a command and a pub/sub connection), or to a Cluster (a cluster connection and sharded pub/sub), and
 * turns connection failures into distlock exceptions that name the server.
 */
final class RedisConnector {
    /*
     * Reconnect quickly: leases are seconds long, and Lettuce's default backoff grows to 30 s; ours is
     * 10 ms doubling to 1 s. Commands time out after the operation timeout (TimeoutOptions), so nothing
     * waits for ever on a dead connection. Each backend owns its ClientResources, shut down on close
     * (when the application shares its own, ours borrow their threads and leave them running).
     *
     * Cluster: follow failovers and resharding with every adaptive refresh trigger (MOVED, ASK,
     * reconnect attempts) and a periodic refresh every 10 s.
     */
    private RedisConnector() {}

    /** Connection attempts when the server closes the connection during the handshake (see connectWithHandshakeRetry). */
    private static final int HANDSHAKE_ATTEMPTS = 3;

    /**
     * What to connect to and how; validated by the builders.
     *
     * @param uri a redis, rediss or (not with cluster) Sentinel URI
     * @param clientName the connection name for CLIENT LIST, or null
     * @param acks replica acknowledgement ({@link ReplicaAcks#NONE} with cluster)
     * @param sharedResources the application's Lettuce resources whose threads to run on, or null for our own
     * @param waiterHeartbeat how long a waiter of a queued kind stays queued without checking its turn
     */
    record Settings(String uri, String keyPrefix, Duration operationTimeout, Duration connectTimeout, @Nullable String clientName,
            ReplicaAcks acks, boolean cluster, @Nullable ClientResources sharedResources, Duration waiterHeartbeat) {}

    /**
     * Connects and returns the backend.
     *
     * @throws IllegalArgumentException if the URI cannot be parsed
     * @throws BackendUnavailableException if Redis cannot be reached within the connect timeout
     * @throws LockException if Redis refuses the connection (for example, wrong credentials)
     */
    static RedisLockBackend open(Settings settings) {
        RedisURI redisUri = parse(settings.uri());
        redisUri.setTimeout(settings.operationTimeout());
        if (settings.clientName() != null) {
            redisUri.setClientName(settings.clientName());
        }
        String server = describe(redisUri);
        ClientResources resources = resources(settings.sharedResources());
        return settings.cluster() ? openCluster(settings, redisUri, server, resources) : openStandalone(settings, redisUri, server, resources);
    }

    /**
     * Our resources: our reconnect delay and event bus (cluster topology events are per client), on the
     * application's event loops, executor and timer when it shares them; shutting ours down leaves those running.
     */
    private static ClientResources resources(@Nullable ClientResources shared) {
        DefaultClientResources.Builder builder = DefaultClientResources.builder()
                .reconnectDelay(Delay.exponential(Duration.ofMillis(10), Duration.ofSeconds(1), 2, TimeUnit.MILLISECONDS));
        if (shared != null) {
            builder.eventLoopGroupProvider(shared.eventLoopGroupProvider()).eventExecutorGroup(shared.eventExecutorGroup()).timer(shared.timer());
        }
        return builder.build();
    }

    /** Returns a description of the URI without secrets, e.g. {@code redis://host:6379}; parses it. */
    static String describe(String uri) {
        return describe(parse(uri));
    }

    /** Returns the URI with any user and password replaced by {@code ***}. */
    static String mask(String uri) {
        return uri.replaceAll("//[^@/]*@", "//***@");
    }

    private static RedisURI parse(String uri) {
        try {
            return RedisURI.create(uri);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("cannot parse Redis uri '" + mask(uri) + "': " + e.getMessage(), e);
        }
    }

    private static RedisLockBackend openStandalone(Settings settings, RedisURI uri, String server, ClientResources resources) {
        RedisClient client = RedisClient.create(resources, uri);
        client.setOptions(ClientOptions.builder()
                .autoReconnect(true)
                .socketOptions(SocketOptions.builder().connectTimeout(settings.connectTimeout()).keepAlive(true).build())
                .timeoutOptions(TimeoutOptions.enabled(settings.operationTimeout()))
                .build());
        StatefulRedisConnection<String, String> connection = null;
        try {
            connection = connectWithHandshakeRetry(client);
            StatefulRedisPubSubConnection<String, String> pubSub = client.connectPubSub(StringCodec.UTF8);
            return new RedisLockBackend(RedisTransport.standalone(client, resources, connection, pubSub), RedisKeys.withPrefix(settings.keyPrefix()),
                    server, settings.operationTimeout(), settings.acks(), settings.waiterHeartbeat());
        } catch (RuntimeException e) {
            throw failedToConnect(server, settings, e, connection, client, resources);
        } catch (Error e) {
            // a linkage error from a classpath the check could not judge: still no leaked event loops
            closeAfterFailure(e, connection, client, resources);
            throw e;
        }
    }

    private static RedisLockBackend openCluster(Settings settings, RedisURI seed, String server, ClientResources resources) {
        RedisClusterClient client = RedisClusterClient.create(resources, seed);
        client.setOptions(ClusterClientOptions.builder()
                .autoReconnect(true)
                .socketOptions(SocketOptions.builder().connectTimeout(settings.connectTimeout()).keepAlive(true).build())
                .timeoutOptions(TimeoutOptions.enabled(settings.operationTimeout()))
                .maxRedirects(5)
                .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
                        .enableAllAdaptiveRefreshTriggers()
                        .adaptiveRefreshTriggersTimeout(Duration.ofMillis(500))
                        .refreshTriggersReconnectAttempts(1)
                        .enablePeriodicRefresh(Duration.ofSeconds(10))
                        .build())
                .build());
        StatefulRedisClusterConnection<String, String> connection = null;
        try {
            connection = client.connect(StringCodec.UTF8);
            StatefulRedisClusterPubSubConnection<String, String> pubSub = client.connectPubSub(StringCodec.UTF8);
            return new RedisLockBackend(RedisTransport.cluster(client, resources, connection, pubSub), RedisKeys.withPrefix(settings.keyPrefix()),
                    "cluster:" + server, settings.operationTimeout(), ReplicaAcks.NONE, settings.waiterHeartbeat());
        } catch (RuntimeException e) {
            throw failedToConnect(server, settings, e, connection, client, resources);
        } catch (Error e) {
            // a linkage error from a classpath the check could not judge: still no leaked event loops
            closeAfterFailure(e, connection, client, resources);
            throw e;
        }
    }

    /**
     * Connects; when the server drops the connection during the handshake, tries up to twice more. Lettuce
     * then sometimes reports "connection closed" instead of the server's WRONGPASS reply, or, when the channel
     * closed before Lettuce looked at it, "RedisHandshakeHandler not registered" (seen under load); a later
     * attempt tells which it was. Other failures (unreachable, timed out) are not retried.
     */
    private static StatefulRedisConnection<String, String> connectWithHandshakeRetry(RedisClient client) {
        for (int attempt = 1; ; attempt++) {
            try {
                return client.connect(StringCodec.UTF8);
            } catch (RedisConnectionException e) {
                if (attempt == HANDSHAKE_ATTEMPTS || !closedDuringHandshake(e)) {
                    throw e;
                }
            }
        }
    }

    private static boolean closedDuringHandshake(RedisConnectionException e) {
        String detail = String.valueOf(rootOf(e).getMessage());
        return detail.contains("closed prematurely") || detail.contains("RedisHandshakeHandler not registered");
    }

    private static Throwable rootOf(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root;
    }

    /** Closes what a failed connect opened (the connection may be null) and says why it failed. */
    private static RuntimeException failedToConnect(String server, Settings settings, RuntimeException e,
            @Nullable StatefulConnection<?, ?> connection, AbstractRedisClient client, ClientResources resources) {
        closeAfterFailure(e, connection, client, resources);
        return connectFailure(server, settings.connectTimeout(), e);
    }

    /** Closes the connection (if any), the client and the resources, each whatever the others do; failures to close are added to {@code failure}. */
    private static void closeAfterFailure(Throwable failure, @Nullable StatefulConnection<?, ?> connection, AbstractRedisClient client,
            ClientResources resources) {
        List<Runnable> steps = new ArrayList<>();
        if (connection != null) {
            steps.add(connection::close);
        }
        steps.add(() -> client.shutdown(Duration.ZERO, Duration.ofSeconds(2)));
        steps.add(() -> resources.shutdown(0, 2, TimeUnit.SECONDS));
        for (Runnable step : steps) {
            try {
                step.run();
            } catch (RuntimeException | Error e) {
                failure.addSuppressed(e);
            }
        }
    }

    private static RuntimeException connectFailure(String server, Duration connectTimeout, RuntimeException e) {
        String detail = String.valueOf(rootOf(e).getMessage());
        if (detail.contains("WRONGPASS") || detail.contains("NOAUTH") || detail.contains("NOPERM")) {
            return new LockException("Redis at " + server + " refused the connection: " + detail, e);
        }
        if (e instanceof RedisException) {
            return new BackendUnavailableException("cannot connect to Redis at " + server + " within " + connectTimeout + ": " + detail, e);
        }
        return e;
    }

    private static String describe(RedisURI uri) {
        String scheme = uri.isSsl() ? "rediss" : "redis";
        String database = uri.getDatabase() != 0 ? "/" + uri.getDatabase() : "";
        if (!uri.getSentinels().isEmpty()) {
            StringBuilder sentinels = new StringBuilder();
            for (RedisURI sentinel : uri.getSentinels()) {
                sentinels.append(sentinels.length() == 0 ? "" : ",").append(sentinel.getHost()).append(':').append(sentinel.getPort());
            }
            return scheme + "-sentinel://" + sentinels + database + "#" + uri.getSentinelMasterId();
        }
        return scheme + "://" + uri.getHost() + ":" + uri.getPort() + database;
    }
}
