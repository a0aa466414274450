package io.distlock.internal;

import io.distlock.spi.LockBackend;
import io.distlock.spi.ReleaseSubscription;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Wakes this client's waiter when the backend reports that a lock may be free.
 *
 * <p>A generation counter avoids lost wake-ups: the waiter reads it before asking the backend and
 * sleeps only while it is unchanged. The backend subscription is shared and reference-counted; when
 * the last waiter leaves it lingers briefly, so that a contended lock does not pay a subscribe round
 * trip per acquisition.
 */
final class ReleaseSignal {
    private static final Logger log = LoggerFactory.getLogger(ReleaseSignal.class);
    private static final long LINGER_MILLIS = 2_000;

    private final String name;
    private final LockBackend backend;
    private final ScheduledExecutorService scheduler;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private long generation;
    private int users;
    private @Nullable CompletableFuture<ReleaseSubscription> subscription;
    private @Nullable ScheduledFuture<?> pendingUnsubscribe;

    ReleaseSignal(String name, LockBackend backend, ScheduledExecutorService scheduler) {
        this.name = name;
        this.backend = backend;
        this.scheduler = scheduler;
    }

    /** Called by the backend on a release notification; cheap, never blocks for long. */
    void fire() {
        lock.lock();
        try {
            generation++;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    long generation() {
        lock.lock();
        try {
            return generation;
        } finally {
            lock.unlock();
        }
    }

    /** Sleeps until the generation moves past {@code seen} or the time is up. */
    void awaitChange(long seen, long nanos) throws InterruptedException {
        lock.lock();
        try {
            long left = nanos;
            while (generation == seen && left > 0) {
                left = changed.awaitNanos(left);
            }
        } finally {
            lock.unlock();
        }
    }

    /** Registers a waiter; returns the subscription future, which completes when notifications flow. */
    CompletableFuture<ReleaseSubscription> retain() {
        lock.lock();
        try {
            users++;
            if (pendingUnsubscribe != null) {
                pendingUnsubscribe.cancel(false);
                pendingUnsubscribe = null;
            }
            CompletableFuture<ReleaseSubscription> current = subscription;
            if (current == null || current.isCompletedExceptionally()) {
                current = backend.watchReleases(name, this::fire);
                subscription = current;
            }
            return current;
        } finally {
            lock.unlock();
        }
    }

    /** Unregisters a waiter; the last one schedules the unsubscribe. */
    void release() {
        lock.lock();
        try {
            users--;
            if (users == 0 && subscription != null) {
                try {
                    pendingUnsubscribe = scheduler.schedule(this::unsubscribeIfUnused, LINGER_MILLIS, TimeUnit.MILLISECONDS);
                } catch (RuntimeException shutDown) {
                    unsubscribeIfUnused();
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /** Drops the subscription now, whoever waits; used when the client closes. */
    void shutdown() {
        lock.lock();
        try {
            users = 0;
            unsubscribeIfUnused();
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    private void unsubscribeIfUnused() {
        CompletableFuture<ReleaseSubscription> toClose;
        lock.lock();
        try {
            if (users > 0 || subscription == null) {
                return;
            }
            toClose = subscription;
            subscription = null;
            pendingUnsubscribe = null;
        } finally {
            lock.unlock();
        }
        toClose.whenComplete((sub, error) -> {
            if (sub != null) {
                sub.close();
            } else {
                log.debug("release notifications for lock '{}' never started", name, error);
            }
        });
    }
}
