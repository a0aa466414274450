package io.distlock.redis;

import io.distlock.spi.ReleaseSubscription;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Release notifications over the client's single pub/sub connection: one channel per lock name that
 * has a waiter in this client, subscribed while it has one. Lettuce re-subscribes after a reconnect;
 * messages published while disconnected are lost, which the engine's fallback poll covers.
 */
final class ReleaseChannels {
    private final StatefulRedisPubSubConnection<String, String> connection;
    private final ConcurrentHashMap<String, Set<Runnable>> listeners = new ConcurrentHashMap<>();
    private final ReentrantLock lock = new ReentrantLock();

    ReleaseChannels(StatefulRedisPubSubConnection<String, String> connection) {
        this.connection = connection;
        connection.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void message(String channel, String message) {
                Set<Runnable> toWake = listeners.get(channel);
                if (toWake != null) {
                    toWake.forEach(Runnable::run);
                }
            }
        });
    }

    CompletableFuture<ReleaseSubscription> watch(String channel, Runnable listener) {
        lock.lock();
        try {
            Set<Runnable> current = listeners.computeIfAbsent(channel, c -> new CopyOnWriteArraySet<>());
            boolean first = current.isEmpty();
            current.add(listener);
            ReleaseSubscription subscription = () -> unwatch(channel, listener);
            if (!first) {
                return CompletableFuture.completedFuture(subscription);
            }
            return connection.async().subscribe(channel).toCompletableFuture().thenApply(ignored -> subscription);
        } finally {
            lock.unlock();
        }
    }

    private void unwatch(String channel, Runnable listener) {
        lock.lock();
        try {
            Set<Runnable> current = listeners.get(channel);
            if (current == null || !current.remove(listener)) {
                return;
            }
            if (current.isEmpty()) {
                listeners.remove(channel);
                if (connection.isOpen()) {
                    connection.async().unsubscribe(channel);
                }
            }
        } finally {
            lock.unlock();
        }
    }
}
