package io.distlock.redis;

import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.event.ClusterTopologyChangedEvent;
import io.lettuce.core.cluster.pubsub.StatefulRedisClusterPubSubConnection;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.resource.ClientResources;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import reactor.core.Disposable;

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
        ReleaseChannels channels = new ReleaseChannels(resources.eventExecutorGroup());
        pubSub.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void message(String channel, String message) {
                channels.deliver(channel, message);
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
     * connection to the master that owns the channel's slot (the same slot as the lock key). When Lettuce
     * reports a topology change (a shard failed over, slots moved), every watched channel is subscribed
     * again at its slot's current owner.
     */
    static RedisTransport cluster(RedisClusterClient client, ClientResources resources,
            StatefulRedisClusterConnection<String, String> connection, StatefulRedisClusterPubSubConnection<String, String> pubSub) {
        ReleaseChannels channels = new ReleaseChannels(resources.eventExecutorGroup());
        ShardedSubscriber subscriber = new ShardedSubscriber(pubSub, channels);
        channels.subscriber(subscriber);
        Disposable topologyChanges = resources.eventBus().get()
                .ofType(ClusterTopologyChangedEvent.class)
                .subscribe(event -> {
                    subscriber.topologyChanged(event.after());
                    channels.resubscribeAll();
                });
        Runnable closer = closer(pubSub::close, connection::close, () -> client.shutdown(Duration.ZERO, Duration.ofSeconds(2)), resources);
        return new RedisTransport(connection.async(), channels, true, () -> {
            topologyChanges.dispose();
            closer.run();
        }, new AtomicLong());
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
