package io.distlock.internal;

import io.distlock.DistributedLock;
import io.distlock.Lease;
import io.distlock.LeaseLostException;
import io.distlock.LeaseLostException.Reason;
import io.distlock.LockAcquireTimeoutException;
import io.distlock.LockOptions;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The {@link DistributedLock} of every backend and kind: per-thread reentrancy and lease handles over
 * its kind's {@link LockAcquirer}. One per {@code getLock} call, holding only the name and options: all
 * locks of one kind and name in one client share the name's {@link LockSlot} while it is in use. The two
 * sides of a read-write lock also know their {@link EngineReadWriteLock}, which decides downgrades and
 * refuses upgrades.
 */
final class EngineLock implements DistributedLock {
    private static final long FOREVER = LockAcquirer.FOREVER;

    private final EngineContext engine;
    private final LockSpace space;
    private final String name;
    private final LockOptions options;
    private final @Nullable EngineReadWriteLock readWrite;

    EngineLock(EngineContext engine, LockSpace space, String name, LockOptions options, @Nullable EngineReadWriteLock readWrite) {
        this.engine = engine;
        this.space = space;
        this.name = name;
        this.options = options;
        this.readWrite = readWrite;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public LockOptions options() {
        return options;
    }

    @Override
    public Lease acquire() throws InterruptedException {
        return LeaseHandle.owning(space, Objects.requireNonNull(hold(FOREVER, false), "a wait without a deadline ends with a hold"));
    }

    @Override
    public Lease acquire(Duration waitTime) throws InterruptedException {
        return tryAcquire(waitTime).orElseThrow(() -> new LockAcquireTimeoutException(name(), waitTime));
    }

    @Override
    public Optional<Lease> tryAcquire(Duration waitTime) throws InterruptedException {
        Acquisition held = hold(checkWait(waitTime), false);
        return held == null ? Optional.empty() : Optional.of(LeaseHandle.owning(space, held));
    }

    @Override
    public Optional<Lease> tryAcquireDetached(Duration waitTime) throws InterruptedException {
        Acquisition held = hold(checkWait(waitTime), true);
        return held == null ? Optional.empty() : Optional.of(LeaseHandle.owning(space, held));
    }

    @Override
    public void lock() {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    hold(FOREVER, false);
                    return;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        hold(FOREVER, false);
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        if (unit == null) {
            throw new IllegalArgumentException("unit must not be null");
        }
        return hold(Math.max(0, unit.toNanos(time)), false) != null;
    }

    @Override
    public void unlock() {
        Acquisition held = ownedByCurrentThread();
        if (held == null) {
            throw new IllegalMonitorStateException("lock '" + name() + "' is not held by the current thread");
        }
        space.releaseHold(held, true);
    }

    @Override
    public Lease heldLease() {
        Acquisition held = ownedByCurrentThread();
        if (held == null) {
            throw new IllegalMonitorStateException("lock '" + name() + "' is not held by the current thread");
        }
        return LeaseHandle.view(space, held);
    }

    @Override
    public boolean isHeldByCurrentThread() {
        return ownedByCurrentThread() != null;
    }

    @Override
    public int getHoldCount() {
        Acquisition held = ownedByCurrentThread();
        return held == null ? 0 : held.holdCount();
    }

    @Override
    public boolean isLocked() {
        engine.checkOpen();
        return engine.calls().awaitUninterruptibly(space.backend.isLocked(name()), "isLocked", name());
    }

    @Override
    public boolean forceUnlock() {
        engine.checkOpen();
        // Read the local holders before the call: during the round trip an early local handoff may make
        // another acquisition the holder, and that one was granted after (or despite) the force-unlock.
        List<Acquisition> local = localHolders();
        LockSlot slot = space.slots.find(name);
        String ownerBefore = slot == null ? null : slot.lastOwnerId; // a handoff passes it on unchanged
        boolean freed = engine.calls().awaitUninterruptibly(space.backend.forceRelease(name), "forceUnlock", name);
        if (freed) {
            // A lease handed on locally during the round trip (CohortHandoff) keeps its owner id, which the server no
            // longer holds. The ended owner ids are recorded in the slot first, then every holder under one of them is
            // lost: a thread that takes a parked lease checks the record after it became the holder, so one of us sees
            // the other.
            java.util.Set<String> ended = new java.util.HashSet<>();
            local.forEach(holder -> ended.add(holder.ownerId));
            if (ownerBefore != null) {
                ended.add(ownerBefore);
            }
            if (slot != null) {
                slot.revoke(ended);
            }
            List<Acquisition> after = localHolders();
            for (Acquisition holder : local) {
                engine.losses().lose(holder, Reason.FORCE_UNLOCKED, "it was force-unlocked through this client", null);
            }
            for (Acquisition holder : after) {
                if (ended.contains(holder.ownerId)) {
                    engine.losses().lose(holder, Reason.FORCE_UNLOCKED, "it was force-unlocked through this client", null);
                }
            }
        }
        return freed;
    }

    /** Returns the acquisitions of this client that hold this lock now. */
    List<Acquisition> localHolders() {
        LockSlot slot = space.slots.find(name);
        return slot == null ? List.of() : slot.localHolders();
    }

    /** Returns the acquisition the calling thread holds (at least one hold), or null. */
    @Nullable Acquisition ownedByCurrentThread() {
        LockSlot slot = space.slots.find(name);
        Acquisition held = slot == null ? null : slot.heldBy(Thread.currentThread());
        return held != null && held.holdCount() > 0 ? held : null;
    }

    /**
     * Takes one hold for the calling thread: re-entry, or a new acquisition; or, {@code detached}, a new
     * acquisition that belongs to no thread. Null if the wait ran out.
     */
    private @Nullable Acquisition hold(long waitNanos, boolean detached) throws InterruptedException {
        engine.checkOpen();
        LockSlot slot = space.slots.enter(name);
        try {
            Acquisition held = slot.heldBy(Thread.currentThread());
            if (held != null) {
                if (detached && held.holdCount() > 0) {
                    throw new IllegalStateException("lock '" + name + "' is held by this thread (" + Thread.currentThread().getName()
                            + "); a detached acquisition of it would wait for itself");
                }
                LeaseLostException lost = held.lossReport();
                if (lost != null && held.holdCount() > 0) {
                    throw lost; // re-entering a lost lock would claim protection that is gone
                }
                if (!detached && held.tryReenter()) {
                    return held;
                }
            }
            Granter granter = readWrite == null ? null : readWrite.granterFor(this);
            Acquisition acquired = granter == null ? space.acquirer.acquire(slot, options, waitNanos)
                    : space.acquirer.acquire(slot, options, waitNanos, granter);
            if (detached && acquired != null) {
                acquired.detach();
            }
            return acquired;
        } finally {
            slot.leave(); // a new acquisition entered the slot for itself
        }
    }

    static long checkWait(Duration waitTime) {
        if (waitTime == null) {
            throw new IllegalArgumentException("waitTime must not be null");
        }
        if (waitTime.isNegative()) {
            throw new IllegalArgumentException("waitTime must not be negative, was " + waitTime);
        }
        return waitTime.compareTo(Duration.ofDays(365 * 100)) > 0 ? FOREVER : waitTime.toNanos();
    }

    @Override
    public String toString() {
        return "DistributedLock[" + (space.kind.equals("lock") ? "" : space.kind + " ") + name() + ", " + options + "]";
    }
}
