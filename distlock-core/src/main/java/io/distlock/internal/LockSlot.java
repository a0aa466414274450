package io.distlock.internal;

import java.util.concurrent.Semaphore;
import org.jspecify.annotations.Nullable;

/**
 * Per client and lock name, while anyone in the process uses the name: the local queue (gate), the
 * current holder, and the wake-up signal for waiters. Slots come and go with use (see {@link LockSlots}).
 *
 * <p>The gate is a fair semaphore rather than a ReentrantLock because a lease may be released from a
 * thread other than the one that acquired it. A thread passes the gate before it talks to the
 * backend and keeps it while it holds the lock, so the other threads of this client wait locally,
 * in arrival order, without backend traffic.
 */
final class LockSlot {
    final String name;
    final Semaphore gate = new Semaphore(1, true);
    final ReleaseSignal signal;
    private final LockSlots registry;
    volatile @Nullable Acquisition holder;
    /** Early local handoffs in a row (see LockAcquirer); touched only by the thread past the gate. */
    int earlyHandoffs;
    /** Who uses the slot: threads in hold(), acquisitions, a live release subscription. Changed only by {@link LockSlots}. */
    int users;

    LockSlot(String name, LockSlots registry, ReleaseSignal.Factory signals) {
        this.name = name;
        this.registry = registry;
        this.signal = signals.create(this);
    }

    /** Counts one more user of this slot; the caller must already be one (so the slot is registered). */
    void enter() {
        registry.enter(this);
    }

    /** Counts one user less; the last one removes the slot from its registry. */
    void leave() {
        registry.leave(this);
    }

    @Override
    public String toString() {
        return "LockSlot[" + name + ", holder=" + holder + "]";
    }
}
