package io.distlock.internal;

import io.distlock.spi.LockBackend;
import io.distlock.spi.PollingAcquire;
import io.distlock.spi.QueueingAcquire;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * One kind of lock of a client (plain, fair, read, write, a semaphore's permits): its storage, the
 * per-name slots of its names in use, its acquirer, and how many holds one name may have at once.
 */
final class LockSpace {
    /*
     * Every kind goes through the same engine: one watchdog, one loss path, one close. What differs is
     * the storage (a LockBackend of the backend's, see LockKinds) and the local sharing: an exclusive
     * kind has one holder per name, and its slot's gate lets one thread at a time talk to the backend;
     * a shared kind (readers, permits) has a holder per thread, and its gate lets `localPermits` threads
     * through at once (a semaphore's permits: more than that can never be held by one client anyway).
     *
     * The spaces of plain, fair, read and write locks live as long as the client. A semaphore has a space per
     * number of permits (its storage and local gate depend on it), which lives only while it is used: pinned by
     * every call that may enter a slot (EngineLockClient.pinSemaphoreSpace), and dropped from the client once
     * no call pins it and its last slot is gone (onUnused, told by LockSlots after it removes a slot). An
     * application that opens semaphores with ever new numbers of permits keeps nothing for the old ones.
     */
    final String kind;
    final LockBackend backend;
    final boolean shared;
    final int localPermits;
    final LockSlots slots;
    final LockAcquirer acquirer;
    /** Calls that may enter a slot of this space now (semaphore spaces); guarded by the client's kinds lock. */
    int pins;
    private final @Nullable Consumer<LockSpace> onUnused;

    LockSpace(EngineContext engine, String kind, LockBackend backend, boolean shared, int localPermits) {
        this(engine, kind, backend, shared, localPermits, null);
    }

    /** A space that tells {@code onUnused} each time its last slot is removed (then it may have no use left). */
    LockSpace(EngineContext engine, String kind, LockBackend backend, boolean shared, int localPermits,
            @Nullable Consumer<LockSpace> onUnused) {
        boolean polling = backend instanceof PollingAcquire;
        boolean queueing = backend instanceof QueueingAcquire;
        if (polling == queueing) {
            throw new IllegalArgumentException("the " + kind + " storage of " + backend.describe() + " must implement exactly one of "
                    + "PollingAcquire and QueueingAcquire (it implements " + (polling ? "both" : "neither") + ")");
        }
        this.kind = kind;
        this.backend = backend;
        this.shared = shared;
        this.localPermits = localPermits;
        PollingAcquire pollingBackend = polling ? (PollingAcquire) backend : null;
        this.slots = new LockSlots(this, slot -> new ReleaseSignal(slot, pollingBackend, engine.clock()));
        this.acquirer = new LockAcquirer(engine, this, polling ? new PollingGranter(engine, backend, (PollingAcquire) backend)
                : new QueueGranter(engine, (QueueingAcquire) backend));
        this.onUnused = onUnused;
    }

    /** Called by the slots when they removed their last slot. */
    void slotsEmptied() {
        if (onUnused != null) {
            onUnused.accept(this);
        }
    }

    /** Releases one hold; the last one releases the backend lock. */
    void releaseHold(Acquisition held, boolean reportLoss) {
        int left = held.releaseHold();
        if (left == 0) {
            acquirer.release(held, reportLoss);
        }
    }

    /**
     * Ends one hold, leaving the backend lock held on the server for {@code holdFor} if it was the last one
     * ({@link LockAcquirer#expireAfter}); with other holds left, they keep it.
     */
    boolean expireHold(Acquisition held, java.time.Duration holdFor) {
        int left = held.releaseHold();
        return left > 0 || acquirer.expireAfter(held, holdFor);
    }

    /** Renews the lease of {@code held} now for {@code leaseTime} ({@link LockAcquirer#renewByHand}). */
    boolean renewHold(Acquisition held, java.time.Duration leaseTime) {
        return acquirer.renewByHand(held, leaseTime);
    }

    @Override
    public String toString() {
        return "LockSpace[" + kind + "]";
    }
}
