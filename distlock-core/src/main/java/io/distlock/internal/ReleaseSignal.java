package io.distlock.internal;

import io.distlock.spi.PollingAcquire;
import io.distlock.spi.ReleaseSubscription;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where this client's waiter for a lock parks, and what wakes it: the backend's release notification
 * (a polling backend), its turn in the queue (a queueing backend), or the client closing.
 */
final class ReleaseSignal {
    /*
     * A generation counter avoids lost wake-ups: the waiter reads it before asking the backend and
     * sleeps only while it is unchanged, so a notification that arrives during the request counts.
     *
     * The backend subscription (polling backends only) is shared and reference-counted by waiters; when
     * the last waiter leaves it lingers briefly, so that a contended lock does not pay a subscribe round
     * trip per acquisition. A live subscription counts as a user of the slot, so the slot (and this
     * signal) stays while the subscription lingers, and goes once it is dropped.
     */
    private static final Logger log = LoggerFactory.getLogger(ReleaseSignal.class);
    private static final long LINGER_NANOS = TimeUnit.SECONDS.toNanos(2);

    /** Makes the signal of a slot. */
    interface Factory {
        ReleaseSignal create(LockSlot slot);
    }

    private final LockSlot slot;
    private final @Nullable PollingAcquire backend;
    private final EngineClock clock;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private long generation;
    private int waiters;
    private boolean closed;
    private @Nullable CompletableFuture<ReleaseSubscription> subscription;
    private EngineClock.@Nullable Timer pendingUnsubscribe;

    ReleaseSignal(LockSlot slot, @Nullable PollingAcquire backend, EngineClock clock) {
        this.slot = slot;
        this.backend = backend;
        this.clock = clock;
    }

    /** Wakes the waiter: a release notification, a turn, or the client closing. Cheap; never blocks for long. */
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

    /** Sleeps until the generation moves past {@code seen} or {@code nanos} have passed. */
    void awaitChange(long seen, long nanos) throws InterruptedException {
        lock.lock();
        try {
            long left = nanos;
            while (generation == seen && left > 0 && !closed) {
                left = changed.awaitNanos(left);
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Registers a waiter and returns the subscription future, which completes when notifications flow;
     * a completed future for queueing backends, whose turns need no subscription.
     */
    CompletableFuture<ReleaseSubscription> retain() {
        lock.lock();
        try {
            waiters++;
            if (pendingUnsubscribe != null) {
                pendingUnsubscribe.cancel();
                pendingUnsubscribe = null;
            }
            if (backend == null) {
                return CompletableFuture.completedFuture(() -> { });
            }
            CompletableFuture<ReleaseSubscription> current = subscription;
            if (current == null || current.isCompletedExceptionally()) {
                if (current == null) {
                    slot.enter(); // the subscription keeps the slot alive until it is dropped
                }
                current = backend.watchReleases(slot.name, this::fire);
                subscription = current;
            }
            return current;
        } finally {
            lock.unlock();
        }
    }

    /** Unregisters a waiter; the last one schedules dropping the subscription. */
    void release() {
        lock.lock();
        try {
            waiters--;
            if (waiters == 0 && subscription != null) {
                pendingUnsubscribe = clock.schedule(this::unsubscribeIfUnused, LINGER_NANOS);
            }
        } finally {
            lock.unlock();
        }
    }

    /** Drops a lingering subscription now, as its timer would later; a subscription with waiters stays. */
    void endLinger() {
        EngineClock.Timer pending;
        lock.lock();
        try {
            pending = pendingUnsubscribe;
        } finally {
            lock.unlock();
        }
        if (pending != null) {
            pending.cancel();
            unsubscribeIfUnused();
        }
    }

    /** Wakes every waiter for good and drops the subscription; used when the client closes. */
    void shutdown() {
        lock.lock();
        try {
            closed = true;
            waiters = 0;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        unsubscribeIfUnused();
    }

    private void unsubscribeIfUnused() {
        CompletableFuture<ReleaseSubscription> toClose;
        lock.lock();
        try {
            if (waiters > 0 || subscription == null) {
                return;
            }
            toClose = subscription;
            subscription = null;
            pendingUnsubscribe = null;
        } finally {
            lock.unlock();
        }
        slot.leave();
        toClose.whenComplete((sub, error) -> {
            if (sub != null) {
                sub.close();
            } else {
                log.debug("release notifications for lock '{}' never started", slot.name, error);
            }
        });
    }
}
