package io.distlock.internal;

import io.distlock.LeaseLostException;
import io.distlock.LockOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One grant of a lock by the backend: owner id, fencing token, lease deadline, hold count and loss
 * listeners. Every hold of a thread (lock() or acquire()) shares one acquisition.
 */
final class Acquisition {
    /*
     * State moves once, from ACTIVE to RELEASED or LOST, by compare-and-set, so that a concurrent
     * renewal failure, local-deadline check and release agree on one outcome, and listeners fire
     * exactly once. The hold count may only grow while it is positive (re-entry by the owner thread)
     * and only shrinks by one per unlock() or per lease handle close.
     */
    private static final Logger log = LoggerFactory.getLogger(Acquisition.class);

    enum State { ACTIVE, RELEASED, LOST }

    final LockSlot slot;
    final String ownerId;
    final long fencingToken;
    final LockOptions options;
    final Thread ownerThread;

    private final AtomicInteger holds = new AtomicInteger(1);
    private final AtomicReference<State> state = new AtomicReference<>(State.ACTIVE);
    private final AtomicBoolean slotFreed = new AtomicBoolean();
    private final ReentrantLock listenerLock = new ReentrantLock();
    private final List<Consumer<LeaseLostException>> listeners = new ArrayList<>(1);
    private final Executor events;
    private final long leaseNanos;
    private volatile long validUntilNanos;
    private volatile boolean suspended;
    private volatile @Nullable LeaseLostException lostCause;
    private volatile String lostReason = "";

    /** Watchdog bookkeeping, changed only under the watchdog's lock. */
    volatile boolean watched;
    int queuedEntries;
    boolean expiryQueued;

    Acquisition(LockSlot slot, String ownerId, long fencingToken, LockOptions options, long requestSentNanos, Executor events) {
        this.slot = slot;
        this.ownerId = ownerId;
        this.fencingToken = fencingToken;
        this.options = options;
        this.ownerThread = Thread.currentThread();
        this.events = events;
        this.leaseNanos = options.leaseTime().toNanos();
        this.validUntilNanos = deadlineFrom(requestSentNanos);
    }

    String lockName() {
        return slot.name;
    }

    /** The local deadline of a lease confirmed by a request sent at {@code sentNanos}, less clock drift. */
    private long deadlineFrom(long sentNanos) {
        long drift = leaseNanos / 100 + 2_000_000L;
        return sentNanos + leaseNanos - drift;
    }

    long validUntilNanos() {
        return validUntilNanos;
    }

    /** Records a renewal confirmed by the backend for a request sent at {@code sentNanos}. */
    void confirmRenewal(long sentNanos) {
        long candidate = deadlineFrom(sentNanos);
        if (candidate - validUntilNanos > 0) {
            validUntilNanos = candidate;
        }
    }

    State state() {
        return state.get();
    }

    boolean isValid() {
        return state.get() == State.ACTIVE && !suspended && System.nanoTime() - validUntilNanos < 0;
    }

    /** Marks the lease untrusted (session in doubt) or trusted again. */
    void setSuspended(boolean suspended) {
        this.suspended = suspended;
    }

    Duration remaining() {
        if (state.get() != State.ACTIVE || suspended) {
            return Duration.ZERO;
        }
        long left = validUntilNanos - System.nanoTime();
        return left > 0 ? Duration.ofNanos(left) : Duration.ZERO;
    }

    int holdCount() {
        return Math.max(0, holds.get());
    }

    /** Adds a hold if the acquisition still has one; false if its last hold is being released. */
    boolean tryReenter() {
        while (true) {
            int current = holds.get();
            if (current <= 0) {
                return false;
            }
            if (holds.compareAndSet(current, current + 1)) {
                return true;
            }
        }
    }

    /** Removes one hold; returns the holds left, or -1 if there was none to remove. */
    int releaseHold() {
        while (true) {
            int current = holds.get();
            if (current <= 0) {
                return -1;
            }
            if (holds.compareAndSet(current, current - 1)) {
                return current - 1;
            }
        }
    }

    /**
     * Clears this acquisition from its slot and opens the slot's gate, exactly once, whichever of
     * unlock, lease close and client close gets there first.
     */
    void freeSlot() {
        if (slotFreed.compareAndSet(false, true)) {
            if (slot.holder == this) {
                slot.holder = null;
            }
            slot.gate.release();
        }
    }

    boolean markReleased() {
        return state.compareAndSet(State.ACTIVE, State.RELEASED);
    }

    /** Marks the lease lost and tells the listeners, once; returns false if it had already ended. */
    boolean markLost(String reason, @Nullable Throwable cause) {
        LeaseLostException lost = new LeaseLostException(lockName(), fencingToken, reason, cause);
        List<Consumer<LeaseLostException>> toTell;
        listenerLock.lock();
        try {
            if (!state.compareAndSet(State.ACTIVE, State.LOST)) {
                return false;
            }
            lostReason = reason;
            lostCause = lost;
            toTell = new ArrayList<>(listeners);
            listeners.clear();
        } finally {
            listenerLock.unlock();
        }
        log.warn("{}", lost.getMessage());
        toTell.forEach(listener -> tell(listener, lost));
        return true;
    }

    /** Returns a fresh exception describing the loss (with the caller's stack), or null if not lost. */
    @Nullable LeaseLostException lossReport() {
        LeaseLostException lost = lostCause;
        if (lost == null) {
            return null;
        }
        return new LeaseLostException(lockName(), fencingToken, lostReason, lost);
    }

    void onLost(Consumer<LeaseLostException> listener) {
        if (listener == null) {
            throw new IllegalArgumentException("listener must not be null");
        }
        listenerLock.lock();
        try {
            if (state.get() != State.LOST) {
                listeners.add(listener);
                return;
            }
        } finally {
            listenerLock.unlock();
        }
        LeaseLostException lost = lostCause;
        if (lost != null) {
            tell(listener, lost);
        }
    }

    private void tell(Consumer<LeaseLostException> listener, LeaseLostException lost) {
        try {
            events.execute(() -> {
                try {
                    listener.accept(lost);
                } catch (RuntimeException | Error e) {
                    log.error("onLost listener of lock '{}' threw", lockName(), e);
                }
            });
        } catch (RuntimeException rejected) {
            // The client is closing and its event threads are gone: tell on this thread instead.
            listener.accept(lost);
        }
    }

    @Override
    public String toString() {
        return "Acquisition[" + lockName() + ", token=" + fencingToken + ", " + state.get() + ", holds=" + holds.get() + "]";
    }
}
