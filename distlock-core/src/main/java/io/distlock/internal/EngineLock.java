package io.distlock.internal;

import io.distlock.DistributedLock;
import io.distlock.Lease;
import io.distlock.LeaseLostException;
import io.distlock.LeaseLostException.Reason;
import io.distlock.LockAcquireTimeoutException;
import io.distlock.LockOptions;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The {@link DistributedLock} of every backend: per-thread reentrancy and lease handles over the
 * client's {@link LockAcquirer}. One per {@code getLock} call, holding only the name and options: all
 * locks of one name in one client share the name's {@link LockSlot} while it is in use.
 */
final class EngineLock implements DistributedLock {
    private static final long FOREVER = LockAcquirer.FOREVER;

    private final EngineLockClient client;
    private final String name;
    private final LockOptions options;

    EngineLock(EngineLockClient client, String name, LockOptions options) {
        this.client = client;
        this.name = name;
        this.options = options;
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
        return LeaseHandle.owning(this, hold(FOREVER, false));
    }

    @Override
    public Lease acquire(Duration waitTime) throws InterruptedException {
        return tryAcquire(waitTime).orElseThrow(() -> new LockAcquireTimeoutException(name(), waitTime));
    }

    @Override
    public Optional<Lease> tryAcquire(Duration waitTime) throws InterruptedException {
        Acquisition held = hold(checkWait(waitTime), false);
        return held == null ? Optional.empty() : Optional.of(LeaseHandle.owning(this, held));
    }

    @Override
    public Optional<Lease> tryAcquireDetached(Duration waitTime) throws InterruptedException {
        Acquisition held = hold(checkWait(waitTime), true);
        return held == null ? Optional.empty() : Optional.of(LeaseHandle.owning(this, held));
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
        releaseHold(held, true);
    }

    @Override
    public Lease heldLease() {
        Acquisition held = ownedByCurrentThread();
        if (held == null) {
            throw new IllegalMonitorStateException("lock '" + name() + "' is not held by the current thread");
        }
        return LeaseHandle.view(this, held);
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
        client.checkOpen();
        return client.calls().awaitUninterruptibly(client.backend().isLocked(name()), "isLocked", name());
    }

    @Override
    public boolean forceUnlock() {
        client.checkOpen();
        // Read the local holder before the call: during the round trip an early local handoff may make
        // another acquisition the holder, and that one was granted after (or despite) the force-unlock.
        Acquisition local = holder();
        boolean freed = client.calls().awaitUninterruptibly(client.backend().forceRelease(name), "forceUnlock", name);
        if (freed && local != null) {
            client.losses().lose(local, Reason.FORCE_UNLOCKED, "it was force-unlocked through this client", null);
        }
        return freed;
    }

    private @Nullable Acquisition holder() {
        LockSlot slot = client.slots().find(name);
        return slot == null ? null : slot.holder;
    }

    private @Nullable Acquisition ownedByCurrentThread() {
        Acquisition held = holder();
        if (held != null && held.ownerThread == Thread.currentThread() && held.holdCount() > 0) {
            return held;
        }
        return null;
    }

    /**
     * Takes one hold for the calling thread: re-entry, or a new acquisition; or, {@code detached}, a new
     * acquisition that belongs to no thread. Null if the wait ran out.
     */
    private @Nullable Acquisition hold(long waitNanos, boolean detached) throws InterruptedException {
        client.checkOpen();
        LockSlot slot = client.slots().enter(name);
        try {
            Acquisition held = slot.holder;
            if (held != null && held.ownerThread == Thread.currentThread()) {
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
            Acquisition acquired = client.acquirer().acquire(slot, options, waitNanos);
            if (detached && acquired != null) {
                acquired.detach();
            }
            return acquired;
        } finally {
            slot.leave(); // a new acquisition entered the slot for itself
        }
    }

    /** Releases one hold; the last one releases the backend lock. */
    void releaseHold(Acquisition held, boolean reportLoss) {
        int left = held.releaseHold();
        if (left == 0) {
            client.acquirer().release(held, reportLoss);
        }
    }

    private static long checkWait(Duration waitTime) {
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
        return "DistributedLock[" + name() + ", " + options + "]";
    }
}
