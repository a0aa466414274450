package io.distlock.redis;

import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.pubsub.StatefulRedisClusterPubSubConnection;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Release notifications on a Cluster: SSUBSCRIBE on a connection to the master that owns the channel's
 * slot (the slot of the lock key), so that only that shard's releases reach this client.
 */
final class ShardedSubscriber implements ReleaseChannels.Subscriber {
    /*
     * Each channel remembers the node it is subscribed at. After a failover or a resharding the slot has
     * a new owner, and the old subscription hears nothing (its node is dead or no longer publishes the
     * slot's releases). resubscribe() moves a channel to its slot's current owner: ReleaseChannels calls
     * it for every watched channel when Lettuce reports a topology change and for a channel whenever
     * another waiter starts waiting on it. The owner is looked up in the topology the last change event
     * announced: Lettuce 7.7 updates the connection's partitions before publishing that event, but 6.x and
     * 7.5 publish it first, so reading the partitions there would find the old owner again.
     * The old subscription is dropped only after the new one is confirmed; a failed move keeps the old
     * entry, so the next topology change or waiter tries again.
     */
    private record Subscription(String nodeId, StatefulRedisPubSubConnection<String, String> connection) {}

    private final StatefulRedisClusterPubSubConnection<String, String> pubSub;
    private final Map<String, Subscription> subscribedAt = new ConcurrentHashMap<>();
    private final Set<StatefulRedisPubSubConnection<String, String>> listened = ConcurrentHashMap.newKeySet();
    private final RedisPubSubAdapter<String, String> listener;
    private volatile @Nullable List<RedisClusterNode> announced;

    ShardedSubscriber(StatefulRedisClusterPubSubConnection<String, String> pubSub, ReleaseChannels channels) {
        this.pubSub = pubSub;
        this.listener = new RedisPubSubAdapter<>() {
            @Override
            public void smessage(String channel, String message) {
                channels.deliver(channel, message);
            }
        };
    }

    @Override
    public CompletableFuture<?> subscribe(String channel) {
        RedisClusterNode owner = owner(channel);
        if (owner == null) {
            return CompletableFuture.failedFuture(new IllegalStateException("no cluster node serves the slot of " + channel));
        }
        // remembered before SSUBSCRIBE is confirmed, so that an unsubscribe racing with it finds it
        return subscribeAt(owner, channel, subscription -> subscribedAt.put(channel, subscription));
    }

    @Override
    public CompletableFuture<?> resubscribe(String channel) {
        Subscription current = subscribedAt.get(channel);
        RedisClusterNode owner = owner(channel);
        if (current == null || owner == null || (owner.getNodeId().equals(current.nodeId()) && current.connection().isOpen())) {
            return CompletableFuture.completedFuture(null);
        }
        return subscribeAt(owner, channel, pending -> { }).thenAccept(moved -> {
            subscribedAt.put(channel, moved);
            if (current.connection() != moved.connection() && current.connection().isOpen()) {
                current.connection().async().sunsubscribe(channel);
            }
        });
    }

    @Override
    public void unsubscribe(String channel) {
        Subscription subscription = subscribedAt.remove(channel);
        if (subscription != null && subscription.connection().isOpen()) {
            subscription.connection().async().sunsubscribe(channel);
        }
    }

    /** Remembers the topology a change event announced; owners are looked up there from now on. */
    void topologyChanged(List<RedisClusterNode> after) {
        announced = List.copyOf(after);
    }

    private @Nullable RedisClusterNode owner(String channel) {
        int slot = SlotHash.getSlot(channel);
        List<RedisClusterNode> nodes = announced;
        if (nodes == null) {
            return pubSub.getPartitions().getPartitionBySlot(slot);
        }
        return nodes.stream().filter(node -> node.hasSlot(slot)).findFirst().orElse(null);
    }

    /** Subscribes at the node; {@code connected} sees the subscription once the node's connection is there, before SSUBSCRIBE is sent. */
    private CompletableFuture<Subscription> subscribeAt(RedisClusterNode owner, String channel, Consumer<Subscription> connected) {
        return pubSub.getConnectionAsync(owner.getNodeId()).thenCompose(node -> {
            if (listened.add(node)) {
                node.addListener(listener);
            }
            Subscription subscription = new Subscription(owner.getNodeId(), node);
            connected.accept(subscription);
            return node.async().ssubscribe(channel).toCompletableFuture().thenApply(ignored -> subscription);
        });
    }
}
