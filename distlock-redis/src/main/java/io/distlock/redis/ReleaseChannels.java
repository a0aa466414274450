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
 * engine's fallback poll covers. A subscription that no longer reaches its publisher (a Cluster shard
 * failed over) is moved by {@link #resubscribeAll}, and checked again whenever another waiter starts
 * waiting on its channel.
 */
final class ReleaseChannels {
    /** Subscribes and unsubscribes one channel. */
    interface Subscriber {
        /** Subscribes; the future completes once messages flow. */
        CompletableFuture<?> subscribe(String channel);

        /** Moves a subscribed channel to where its messages are now published, if that changed; completes when done. */
        default CompletableFuture<?> resubscribe(String channel) {
            return CompletableFuture.completedFuture(null);
        }

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
                resubscribe(channel); // where a Cluster shard failed over, the next waiter moves the subscription
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

    /** Moves every watched channel whose subscription no longer reaches its publisher (a Cluster topology change). */
    void resubscribeAll() {
        lock.lock();
        try {
            listeners.keySet().forEach(this::resubscribe);
        } finally {
            lock.unlock();
        }
    }

    private void resubscribe(String channel) {
        // if the last waiter left while the move was under way, drop what the move subscribed
        subscriber.resubscribe(channel).whenComplete((ignored, error) -> {
            lock.lock();
            try {
                if (!listeners.containsKey(channel)) {
                    subscriber.unsubscribe(channel);
                }
            } finally {
                lock.unlock();
            }
        });
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
