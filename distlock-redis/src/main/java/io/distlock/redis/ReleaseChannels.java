package io.distlock.redis;

import io.distlock.spi.ReleaseSubscription;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Release notifications: one channel per lock name that has a waiter in this client, subscribed while
 * it has one. How a channel is subscribed (SUBSCRIBE on the client's pub/sub connection, or SSUBSCRIBE
 * on the cluster node that owns the channel's slot) is the {@link Subscriber}'s business; it calls
 * {@link #deliver} for each message. Messages published while disconnected are lost, which the
 * engine's fallback poll covers.
 */
final class ReleaseChannels {
    /** Subscribes and unsubscribes one channel. */
    interface Subscriber {
        CompletableFuture<?> subscribe(String channel);

        void unsubscribe(String channel);
    }

    private final ConcurrentHashMap<String, Set<Runnable>> listeners = new ConcurrentHashMap<>();
    private final ReentrantLock lock = new ReentrantLock();
    private Subscriber subscriber;

    /** Sets the subscriber; called once while the backend is built, before any watch. */
    void subscriber(Subscriber subscriber) {
        this.subscriber = subscriber;
    }

    /** Wakes the listeners of a channel on which a message arrived. */
    void deliver(String channel) {
        Set<Runnable> toWake = listeners.get(channel);
        if (toWake != null) {
            toWake.forEach(Runnable::run);
        }
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
            return subscriber.subscribe(channel).handle((ignored, error) -> {
                if (error != null) {
                    unwatch(channel, listener); // so that the next watch subscribes again instead of trusting this one
                    throw error instanceof java.util.concurrent.CompletionException completion ? completion
                            : new java.util.concurrent.CompletionException(error);
                }
                return subscription;
            });
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
                subscriber.unsubscribe(channel);
            }
        } finally {
            lock.unlock();
        }
    }
}
