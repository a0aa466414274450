package io.distlock.integration;

import io.distlock.BackendUnavailableException;
import io.distlock.DistributedLock;
import io.distlock.Lease;
import io.distlock.LeaseLostException;
import io.distlock.LockClient;
import io.distlock.LockOptions;
import java.time.Duration;
import java.util.ConcurrentModificationException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.CannotAcquireLockException;

/**
 * A lock of a {@link DistlockLockRegistry}: a distlock {@link DistributedLock} with the exceptions Spring
 * Integration's registries throw. Reentrant and bound to the thread that locked it.
 */
public class DistlockRegistryLock implements Lock {
    private final LockClient client;
    private final DistributedLock lock;
    /** Holds of every thread of this process, for {@link DistlockLockRegistry#expireUnusedOlderThan}. */
    private final AtomicInteger holds = new AtomicInteger();
    /** The time to live of the calling thread's hold, if it was taken with one (not renewed by the watchdog). */
    private final ThreadLocal<@Nullable Duration> ttl = new ThreadLocal<>();
    private volatile long lastUsedMillis = System.currentTimeMillis();

    DistlockRegistryLock(LockClient client, DistributedLock lock) {
        this.client = client;
        this.lock = lock;
    }

    /** Returns the lock's name, the registry key. */
    public String name() {
        return lock.name();
    }

    /**
     * Returns the calling thread's hold: its fencing token, validity and loss listeners.
     *
     * @throws IllegalStateException if the calling thread does not hold the lock
     */
    public Lease heldLease() {
        try {
            return lock.heldLease();
        } catch (IllegalMonitorStateException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    /**
     * Returns the fencing token of the calling thread's hold: larger than every earlier holder's, for the resource to
     * turn away a stale holder's writes.
     *
     * @throws IllegalStateException if the calling thread does not hold the lock
     */
    public long fencingToken() {
        return heldLease().fencingToken();
    }

    /** Returns whether the calling thread holds this lock (its lease may have been lost since). */
    public boolean isHeldByCurrentThread() {
        return lock.isHeldByCurrentThread();
    }

    @Override
    public void lock() {
        try {
            attempt(() -> {
                lock.lock(); // waits through interrupts and sets the flag again
                return true;
            }, null);
        } catch (InterruptedException e) {
            throw new IllegalStateException("lock() cannot be interrupted", e); // DistributedLock.lock() never throws it
        }
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        attempt(() -> {
            lock.lockInterruptibly();
            return true;
        }, null);
    }

    @Override
    public boolean tryLock() {
        try {
            return attempt(lock::tryLock, null);
        } catch (InterruptedException e) {
            throw new IllegalStateException("tryLock() cannot be interrupted", e); // DistributedLock.tryLock() re-asserts it instead
        }
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        return attempt(() -> lock.tryLock(time, unit), null);
    }

    /** An acquisition by the wrapped lock. */
    @FunctionalInterface
    private interface Attempt {
        boolean run() throws InterruptedException;
    }

    /** Runs {@code attempt} with Spring Integration's exception for an unreachable backend, and counts the hold it gives. */
    private boolean attempt(Attempt attempt, @Nullable Duration timeToLive) throws InterruptedException {
        boolean locked;
        try {
            locked = attempt.run();
        } catch (BackendUnavailableException e) {
            throw new CannotAcquireLockException("could not take lock '" + name() + "': " + e.getMessage(), e);
        }
        if (locked) {
            held(timeToLive);
        }
        return locked;
    }

    /**
     * Takes the lock with a lease of {@code timeToLive} that is not renewed (Spring Integration 7's {@code lock(ttl)});
     * re-entry by the holding thread keeps the hold it has.
     */
    final boolean tryLockFor(Duration waitTime, Duration timeToLive) throws InterruptedException {
        if (lock.isHeldByCurrentThread()) {
            return tryLock(waitTime.toNanos(), TimeUnit.NANOSECONDS);
        }
        DistributedLock leased = client.getLock(name(), LockOptions.builder().leaseTime(timeToLive).autoRenew(false).build());
        return attempt(() -> leased.tryLock(waitTime.toNanos(), TimeUnit.NANOSECONDS), timeToLive);
    }

    private void held(@Nullable Duration timeToLive) {
        holds.incrementAndGet();
        if (lock.getHoldCount() == 1) {
            ttl.set(timeToLive); // a new hold; re-entry keeps the first one's
        }
        used();
    }

    /**
     * Releases one hold of the calling thread.
     *
     * @throws IllegalStateException if the calling thread does not hold the lock
     * @throws ConcurrentModificationException if the lock had been lost (its lease ran out, or it was taken over): the
     *     data it guards may have been changed by another holder meanwhile. The hold is gone all the same.
     */
    @Override
    public void unlock() {
        try {
            lock.unlock();
        } catch (IllegalMonitorStateException e) {
            throw new IllegalStateException("lock '" + name() + "' is not held by this thread (" + Thread.currentThread().getName()
                    + ")", e);
        } catch (LeaseLostException e) {
            unheld();
            throw new ConcurrentModificationException("lock '" + name() + "' was lost before it was unlocked (" + e.reason()
                    + "); the data it guards may have been changed by another holder meanwhile", e);
        } catch (RuntimeException e) {
            unheld(); // the hold is gone; the release was not confirmed and the lock ends with its lease
            throw e;
        }
        unheld();
    }

    private void unheld() {
        holds.decrementAndGet();
        if (!lock.isHeldByCurrentThread()) {
            ttl.remove();
        }
    }

    /** Renews the calling thread's hold: see {@link DistlockLockRegistry#renewLock(Object, Duration)}. */
    final void renew(@Nullable Duration timeToLive) {
        Lease lease = heldLease();
        Duration leaseTime = ttl.get();
        boolean renewed;
        if (leaseTime == null) {
            renewed = lease.isValid(); // the watchdog renews it
        } else {
            Duration renewFor = timeToLive == null ? leaseTime : timeToLive;
            renewed = lease.renew(renewFor);
            if (renewed) {
                ttl.set(renewFor);
            }
        }
        if (!renewed) {
            throw new IllegalStateException("lock '" + name() + "' could not be renewed: it was lost");
        }
    }

    /** Not supported: a distributed lock has no conditions ({@link DistributedLock#newCondition()} throws). */
    @Override
    public Condition newCondition() {
        return lock.newCondition();
    }

    void used() {
        lastUsedMillis = System.currentTimeMillis();
    }

    boolean unusedSince(long millis) {
        return holds.get() <= 0 && lastUsedMillis < millis;
    }

    @Override
    public String toString() {
        return "DistlockRegistryLock[" + name() + "]";
    }
}
