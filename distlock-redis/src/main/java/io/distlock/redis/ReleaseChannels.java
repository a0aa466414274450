package io.distlock.redis;

import io.distlock.spi.ReleaseSubscription;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Release and grant notifications: one channel per lock name (and kind) that has a waiter in this
 * client, subscribed while it has one and for a short linger after the last waiter left, so that a lock
 * waited on again and again (a busy lock's next waiter) does not subscribe and unsubscribe each time.
 * How a channel is subscribed (SUBSCRIBE on the client's pub/sub connection, or SSUBSCRIBE on the cluster
 * node that owns the channel's slot) is the {@link Subscriber}'s business; it calls {@link #deliver} for
 * each message. Messages published while disconnected are lost, which the engine's fallback poll covers.
 * A subscription that no longer reaches its publisher (a Cluster shard failed over) is moved by
 * {@link #resubscribeAll}, and checked again whenever another waiter starts waiting on its channel.
 */
final class ReleaseChannels {
    /** How long a channel stays subscribed after its last waiter stopped watching it. */
    static final Duration LINGER = Duration.ofSeconds(2);

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

    /** A subscribed (or subscribing) channel; changed under the lock. */
    private static final class Channel {
        final Set<Consumer<String>> listeners = new CopyOnWriteArraySet<>();
        final CompletableFuture<?> subscribed;
        @Nullable ScheduledFuture<?> unsubscribeLater;

        Channel(CompletableFuture<?> subscribed) {
            this.subscribed = subscribed;
        }

        boolean ready() {
            return subscribed.isDone() && !subscribed.isCompletedExceptionally();
        }
    }

    private final ConcurrentHashMap<String, Channel> channels = new ConcurrentHashMap<>();
    private final ReentrantLock lock = new ReentrantLock();
    private final ScheduledExecutorService timer;
    private @Nullable Subscriber subscriber;

    /** @param timer runs the unsubscribes after the linger (the client's event executors) */
    ReleaseChannels(ScheduledExecutorService timer) {
        this.timer = timer;
    }

    /** Sets the subscriber; called once while the backend is built, before any watch. */
    void subscriber(Subscriber subscriber) {
        this.subscriber = subscriber;
    }

    /** Returns how many channels are subscribed or lingering now. */
    int size() {
        return channels.size();
    }

    private Subscriber subscriber() {
        Subscriber set = subscriber;
        if (set == null) {
            throw new IllegalStateException("ReleaseChannels used before its subscriber was set");
        }
        return set;
    }

    /** Hands a message that arrived on a channel to the channel's listeners. */
    void deliver(String channel, String message) {
        Channel current = channels.get(channel);
        if (current != null) {
            current.listeners.forEach(listener -> listener.accept(message));
        }
    }

    /**
     * Starts handing the messages of a channel to {@code listener}, subscribing the channel if it is not
     * yet; the future completes once messages flow.
     */
    CompletableFuture<ReleaseSubscription> watch(String channel, Consumer<String> listener) {
        lock.lock();
        try {
            Channel current = channels.get(channel);
            if (current == null) {
                Channel subscribing = new Channel(subscriber().subscribe(channel));
                channels.put(channel, subscribing);
                current = subscribing;
            } else {
                keep(current);
                resubscribe(channel); // where a Cluster shard failed over, the next waiter moves the subscription
            }
            current.listeners.add(listener);
            ReleaseSubscription subscription = () -> unwatch(channel, listener);
            Channel watched = current;
            return current.subscribed.handle((ignored, error) -> {
                if (error != null) {
                    forget(channel, watched); // so that the next watch subscribes again instead of trusting this one
                    throw error instanceof CompletionException completion ? completion : new CompletionException(error);
                }
                return subscription;
            });
        } finally {
            lock.unlock();
        }
    }

    /**
     * Starts handing the messages of a channel to {@code listener} if the channel is subscribed already
     * (messages flow now); else returns empty and watches nothing. Costs no call to Redis.
     */
    Optional<ReleaseSubscription> watchIfSubscribed(String channel, Consumer<String> listener) {
        lock.lock();
        try {
            Channel current = channels.get(channel);
            if (current == null || !current.ready()) {
                return Optional.empty();
            }
            keep(current);
            resubscribe(channel); // where a Cluster shard failed over, move the subscription (messages then flow again)
            current.listeners.add(listener);
            return Optional.of(() -> unwatch(channel, listener));
        } finally {
            lock.unlock();
        }
    }

    /** Moves every watched channel whose subscription no longer reaches its publisher (a Cluster topology change). */
    void resubscribeAll() {
        lock.lock();
        try {
            channels.keySet().forEach(this::resubscribe);
        } finally {
            lock.unlock();
        }
    }

    /** Cancels a pending unsubscribe; call under the lock. */
    private static void keep(Channel channel) {
        if (channel.unsubscribeLater != null) {
            channel.unsubscribeLater.cancel(false);
            channel.unsubscribeLater = null;
        }
    }

    private void resubscribe(String channel) {
        // if the channel was dropped while the move was under way, drop what the move subscribed
        subscriber().resubscribe(channel).whenComplete((ignored, error) -> {
            lock.lock();
            try {
                if (!channels.containsKey(channel)) {
                    subscriber().unsubscribe(channel);
                }
            } finally {
                lock.unlock();
            }
        });
    }

    private void unwatch(String channel, Consumer<String> listener) {
        lock.lock();
        try {
            Channel current = channels.get(channel);
            if (current == null || !current.listeners.remove(listener) || !current.listeners.isEmpty()) {
                return;
            }
            keep(current);
            try {
                current.unsubscribeLater = timer.schedule(() -> dropIfIdle(channel, current), LINGER.toMillis(), TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException closing) {
                channels.remove(channel); // the client is closing: no linger
                subscriber().unsubscribe(channel);
            }
        } finally {
            lock.unlock();
        }
    }

    /** Drops every lingering channel now, as its timer would later (for tests that check nothing stays behind). */
    void endLingers() {
        for (Map.Entry<String, Channel> entry : channels.entrySet()) {
            ScheduledFuture<?> pending = entry.getValue().unsubscribeLater;
            if (pending != null && pending.cancel(false)) {
                dropIfIdle(entry.getKey(), entry.getValue());
            }
        }
    }

    private void dropIfIdle(String channel, Channel idle) {
        lock.lock();
        try {
            if (channels.get(channel) == idle && idle.listeners.isEmpty()) {
                channels.remove(channel);
                subscriber().unsubscribe(channel);
            }
        } finally {
            lock.unlock();
        }
    }

    /** Drops a channel whose subscribe failed, if it is still the one mapped. */
    private void forget(String channel, Channel failed) {
        lock.lock();
        try {
            if (channels.get(channel) == failed) {
                channels.remove(channel);
                keep(failed);
                subscriber().unsubscribe(channel); // a SUBSCRIBE that failed here may still have gone through
            }
        } finally {
            lock.unlock();
        }
    }
}
