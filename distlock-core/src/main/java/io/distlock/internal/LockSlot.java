package io.distlock.internal;

import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import org.jspecify.annotations.Nullable;

/**
 * Per client, kind and lock name, while anyone in the process uses the name: the local queue (gate),
 * the current holder(s), and the wake-up signal for waiters. Slots come and go with use (see {@link LockSlots}).
 *
 * <p>The gate is a fair semaphore rather than a ReentrantLock because a lease may be released from a
 * thread other than the one that acquired it. A thread passes the gate before it talks to the
 * backend and keeps it while it holds the lock, so the other threads of this client wait locally,
 * in arrival order, without backend traffic. An exclusive kind's gate has one permit; a shared kind's
 * has {@link LockSpace#localPermits}, and its holders are kept per thread.
 */
final class LockSlot {
    final String name;
    final LockSpace space;
    final Semaphore gate;
    final ReleaseSignal signal;
    private final LockSlots registry;
    /** The holder of an exclusive kind (attached to a thread or detached); unused by shared kinds. */
    volatile @Nullable Acquisition holder;
    /** The thread-bound holders of a shared kind, by thread; null for exclusive kinds. */
    private final @Nullable ConcurrentHashMap<Thread, Acquisition> sharers;
    /**
     * A lease handed on to the next thread past the gate ({@link CohortHandoff}): set by the gate's holder, claimed (taken
     * and cleared at once) by the next one, by a reclaim holding the gate, or by the client's close.
     */
    final java.util.concurrent.atomic.AtomicReference<@Nullable CohortHandoff> parked = new java.util.concurrent.atomic.AtomicReference<>();
    /** The owner id of the last exclusive holder; kept when it goes (a force-unlock reads it, see EngineLock). */
    volatile @Nullable String lastOwnerId;
    /** Owner ids a force-unlock through this client ended: a lease handed on under one of them is not held any more. */
    private volatile java.util.Set<String> revokedOwners = java.util.Set.of();
    /** Early local handoffs in a row (see LockAcquirer); exclusive kinds only, touched only by the thread past the gate. */
    int earlyHandoffs;
    /** Who uses the slot: threads in hold(), acquisitions, a live release subscription. Changed only by {@link LockSlots}. */
    int users;

    LockSlot(String name, LockSpace space, LockSlots registry, ReleaseSignal.Factory signals) {
        this.name = name;
        this.space = space;
        this.registry = registry;
        this.gate = new Semaphore(space.localPermits, true);
        this.sharers = space.shared ? new ConcurrentHashMap<>() : null;
        this.signal = signals.create(this);
    }

    /** Records owner ids whose hold a force-unlock through this client ended ({@link CohortHandoff}). */
    synchronized void revoke(java.util.Set<String> ownerIds) {
        java.util.Set<String> all = new java.util.HashSet<>(revokedOwners);
        all.addAll(ownerIds);
        revokedOwners = java.util.Set.copyOf(all);
    }

    /** Returns whether a force-unlock through this client ended the hold of {@code ownerId}. */
    boolean revoked(String ownerId) {
        return revokedOwners.contains(ownerId);
    }

    /** Returns the acquisition {@code thread} holds (or is releasing) in this slot, or null. */
    @Nullable Acquisition heldBy(Thread thread) {
        if (sharers != null) {
            return sharers.get(thread);
        }
        Acquisition current = holder;
        return current != null && current.ownerThread == thread ? current : null;
    }

    /** Records a new holder, attached to the calling thread. */
    void held(Acquisition acquisition) {
        if (sharers != null) {
            sharers.put(Thread.currentThread(), acquisition);
        } else {
            if (!acquisition.handedOn && !revokedOwners.isEmpty()) {
                revokedOwners = java.util.Set.of(); // a server grant: the owner ids of earlier runs are held by nobody here
            }
            lastOwnerId = acquisition.ownerId;
            holder = acquisition;
        }
    }

    /** Forgets the thread of an acquisition that is being detached from it (it stays the holder of an exclusive kind). */
    void detached(Acquisition acquisition, Thread from) {
        if (sharers != null) {
            sharers.remove(from, acquisition);
        }
    }

    /** Forgets a holder whose last hold is gone. */
    void unheld(Acquisition acquisition) {
        if (holder == acquisition) {
            holder = null;
        }
        Thread thread = acquisition.ownerThread;
        if (sharers != null && thread != null) {
            sharers.remove(thread, acquisition);
        }
    }

    /** Returns this client's holders known here: the exclusive holder, or the shared kind's thread-bound holders. */
    List<Acquisition> localHolders() {
        if (sharers != null) {
            return List.copyOf(sharers.values());
        }
        Acquisition current = holder;
        return current == null ? List.of() : List.of(current);
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
        return "LockSlot[" + space.kind + " " + name + ", holders=" + localHolders() + "]";
    }
}
