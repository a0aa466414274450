package io.distlock.internal;

import java.util.concurrent.Semaphore;
import org.jspecify.annotations.Nullable;

/**
 * Per client and lock name: the local queue (gate) and the current holder.
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
    volatile @Nullable Acquisition holder;
    /** Early local handoffs in a row (see LockAcquirer); touched only by the thread past the gate. */
    int earlyHandoffs;

    LockSlot(String name, ReleaseSignal signal) {
        this.name = name;
        this.signal = signal;
    }
}
