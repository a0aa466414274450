package io.distlock.redis;

import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.pubsub.StatefulRedisClusterPubSubConnection;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.resource.ClientResources;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The Lettuce side of a backend: the command interface (one multiplexed connection, or a cluster
 * connection that routes by slot and follows MOVED/ASK), the release notifications, and closing.
 *
 * @param commands commands; scripts are routed by their first key
 * @param channels release notifications
 * @param cluster true on a cluster: multi-key scripts must stay within one slot, scripts notify with
 *     SPUBLISH and waiters SSUBSCRIBE on the shard
 * @param closer closes connections, client and resources
 * @param connects counts (re)connections of the client: a write and its WAIT only belong together if
 *     no reconnect happened in between (Lettuce replays a pending WAIT on the new connection, which has
 *     made no writes, so it would be acknowledged at once)
 */
record RedisTransport(RedisClusterAsyncCommands<String, String> commands, ReleaseChannels channels, boolean cluster,
        Runnable closer, AtomicLong connects) {

    /** One server (or a master found through Sentinel): a command and a pub/sub connection. */
    static RedisTransport standalone(RedisClient client, ClientResources resources, StatefulRedisConnection<String, String> connection,
            StatefulRedisPubSubConnection<String, String> pubSub) {
        AtomicLong connects = new AtomicLong();
        client.addListener(new RedisConnectionStateListener() {
            @Override
            public void onRedisConnected(RedisChannelHandler<?, ?> connection, SocketAddress address) {
                connects.incrementAndGet();
            }
        });
        ReleaseChannels channels = new ReleaseChannels();
        pubSub.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void message(String channel, String message) {
                channels.deliver(channel);
            }
        });
        channels.subscriber(new ReleaseChannels.Subscriber() {
            @Override
            public CompletableFuture<?> subscribe(String channel) {
                return pubSub.async().subscribe(channel).toCompletableFuture();
            }

            @Override
            public void unsubscribe(String channel) {
                if (pubSub.isOpen()) {
                    pubSub.async().unsubscribe(channel);
                }
            }
        });
        return new RedisTransport(connection.async(), channels, false,
                closer(pubSub::close, connection::close, () -> client.shutdown(Duration.ZERO, Duration.ofSeconds(2)), resources), connects);
    }

    /**
     * A cluster: commands over the cluster connection; release notifications by sharded pub/sub on a
     * connection to the master that owns the channel's slot (the same slot as the lock key). After a
     * failover of that shard the subscription is gone until the next wait subscribes again; waiters
     * meanwhile fall back to polling.
     */
    static RedisTransport cluster(RedisClusterClient client, ClientResources resources,
            StatefulRedisClusterConnection<String, String> connection, StatefulRedisClusterPubSubConnection<String, String> pubSub) {
        ReleaseChannels channels = new ReleaseChannels();
        Map<String, StatefulRedisPubSubConnection<String, String>> subscribedAt = new ConcurrentHashMap<>();
        Set<StatefulRedisPubSubConnection<String, String>> listened = ConcurrentHashMap.newKeySet();
        RedisPubSubAdapter<String, String> listener = new RedisPubSubAdapter<>() {
            @Override
            public void smessage(String channel, String message) {
                channels.deliver(channel);
            }
        };
        channels.subscriber(new ReleaseChannels.Subscriber() {
            @Override
            public CompletableFuture<?> subscribe(String channel) {
                RedisClusterNode owner = pubSub.getPartitions().getPartitionBySlot(SlotHash.getSlot(channel));
                if (owner == null) {
                    return CompletableFuture.failedFuture(new IllegalStateException("no cluster node serves the slot of " + channel));
                }
                return pubSub.getConnectionAsync(owner.getNodeId()).thenCompose(node -> {
                    if (listened.add(node)) {
                        node.addListener(listener);
                    }
                    subscribedAt.put(channel, node);
                    return node.async().ssubscribe(channel).toCompletableFuture();
                });
            }

            @Override
            public void unsubscribe(String channel) {
                StatefulRedisPubSubConnection<String, String> node = subscribedAt.remove(channel);
                if (node != null && node.isOpen()) {
                    node.async().sunsubscribe(channel);
                }
            }
        });
        return new RedisTransport(connection.async(), channels, true,
                closer(pubSub::close, connection::close, () -> client.shutdown(Duration.ZERO, Duration.ofSeconds(2)), resources),
                new AtomicLong());
    }

    /** Closes the connections, then (always) the client and its resources. */
    private static Runnable closer(Runnable closePubSub, Runnable closeConnection, Runnable shutdownClient, ClientResources resources) {
        return () -> {
            try {
                closePubSub.run();
                closeConnection.run();
            } finally {
                shutdownClient.run();
                resources.shutdown(0, 2, TimeUnit.SECONDS);
            }
        };
    }
}
