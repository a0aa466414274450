package io.distlock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * One lock over several locks, of any backends and clients: all or nothing.
 *
 * <pre>{@code
 * DistributedLock both = MultiLock.of(locks.getLock("account:17"), locks.getLock("account:42"));
 * try (Lease lease = both.acquire(Duration.ofSeconds(5))) {
 *     // both accounts are held; lease.isValid() is false as soon as either is lost
 * }
 * }</pre>
 *
 * <p>Parts are acquired one at a time in a global order — by name (names must be distinct) — so two
 * callers locking overlapping sets in different orders cannot deadlock. If a part cannot be acquired within the wait, or its acquisition fails, every
 * part already acquired is released before the call returns. Parts are released in reverse order.
 *
 * <p>The lease of a multi-lock is valid while every part's is, its {@link Lease#remaining()} is the
 * smallest of the parts', and it is lost (listeners told once) as soon as any part is lost. Its
 * {@link Lease#fencingToken()} is the first part's (in lock order); to fence several resources, use each
 * part's own token from {@link MultiLease#parts()}.
 */
public final class MultiLock implements DistributedLock {
    private final List<DistributedLock> parts;
    private final String name;

    private MultiLock(List<DistributedLock> parts) {
        this.parts = parts;
        this.name = parts.stream().map(DistributedLock::name).collect(Collectors.joining(",", "multi(", ")"));
    }

    /**
     * Returns a lock over {@code locks}.
     *
     * @throws IllegalArgumentException if there are no locks or one of them is null
     */
    public static MultiLock of(DistributedLock... locks) {
        if (locks == null) {
            throw new IllegalArgumentException("locks must not be null");
        }
        return of(List.of(nonNull(locks)));
    }

    /**
     * Returns a lock over {@code locks}.
     *
     * @throws IllegalArgumentException if the list is null or empty or holds a null
     */
    public static MultiLock of(List<? extends DistributedLock> locks) {
        if (locks == null || locks.isEmpty()) {
            throw new IllegalArgumentException("a multi-lock needs at least one lock");
        }
        List<DistributedLock> ordered = new ArrayList<>(List.of(nonNull(locks.toArray(new DistributedLock[0]))));
        ordered.sort(Comparator.comparing(DistributedLock::name));
        for (int i = 1; i < ordered.size(); i++) {
            if (ordered.get(i).name().equals(ordered.get(i - 1).name())) {
                throw new IllegalArgumentException("two parts of the multi-lock are named '" + ordered.get(i).name()
                        + "': names must be distinct, so that every caller takes the parts in the same order");
            }
        }
        return new MultiLock(Collections.unmodifiableList(ordered));
    }

    private static DistributedLock[] nonNull(DistributedLock[] locks) {
        for (int i = 0; i < locks.length; i++) {
            if (locks[i] == null) {
                throw new IllegalArgumentException("lock " + i + " of the multi-lock is null");
            }
        }
        return locks;
    }

    /** Returns the parts in lock order. */
    public List<DistributedLock> parts() {
        return parts;
    }

    @Override
    public String name() {
        return name;
    }

    /** Returns the first part's options; each part acquires with its own. */
    @Override
    public LockOptions options() {
        return parts.get(0).options();
    }

    @Override
    public Lease acquire() throws InterruptedException {
        return acquireAll(-1).orElseThrow();
    }

    @Override
    public Lease acquire(Duration waitTime) throws InterruptedException {
        return tryAcquire(waitTime).orElseThrow(() -> new LockAcquireTimeoutException(name, waitTime));
    }

    @Override
    public Optional<Lease> tryAcquire(Duration waitTime) throws InterruptedException {
        checkWait(waitTime);
        return acquireAll(waitTime.compareTo(Duration.ofDays(365 * 100)) > 0 ? -1 : waitTime.toNanos());
    }

    @Override
    public Optional<Lease> tryAcquireDetached(Duration waitTime) throws InterruptedException {
        checkWait(waitTime);
        if (waitTime.compareTo(Duration.ofDays(365 * 100)) > 0) {
            return acquireAll(part -> part.tryAcquireDetached(waitTime));
        }
        long deadline = System.nanoTime() + waitTime.toNanos();
        return acquireAll(part -> part.tryAcquireDetached(Duration.ofNanos(Math.max(0, deadline - System.nanoTime()))));
    }

    private static void checkWait(Duration waitTime) {
        if (waitTime == null || waitTime.isNegative()) {
            throw new IllegalArgumentException("waitTime must not be null or negative, was " + waitTime);
        }
    }

    /** Acquires one part within what is left of the wait. */
    private interface PartAcquiring {
        Optional<Lease> acquire(DistributedLock part) throws InterruptedException;
    }

    /** Acquires every part in order within {@code waitNanos} (-1: forever), or none of them. */
    private Optional<Lease> acquireAll(long waitNanos) throws InterruptedException {
        long deadline = System.nanoTime() + Math.max(0, waitNanos);
        return acquireAll(part -> waitNanos < 0 ? Optional.of(part.acquire())
                : part.tryAcquire(Duration.ofNanos(Math.max(0, deadline - System.nanoTime()))));
    }

    /** Acquires every part in order with {@code acquiring}, or none of them. */
    private Optional<Lease> acquireAll(PartAcquiring acquiring) throws InterruptedException {
        List<Lease> held = new ArrayList<>(parts.size());
        boolean complete = false;
        Throwable failure = null;
        try {
            for (DistributedLock part : parts) {
                Optional<Lease> lease = acquiring.acquire(part);
                if (lease.isEmpty()) {
                    return Optional.empty();
                }
                held.add(lease.get());
            }
            complete = true;
            return Optional.of(new MultiLease(name, held));
        } catch (InterruptedException | RuntimeException | Error e) {
            failure = e;
            throw e;
        } finally {
            if (!complete) {
                rollBack(() -> closeAll(held), failure);
            }
        }
    }

    /** Runs a rollback; its failure is attached to the original one, or thrown if there was none. */
    private static void rollBack(Runnable rollback, @Nullable Throwable original) {
        try {
            rollback.run();
        } catch (RuntimeException e) {
            if (original == null) {
                throw e;
            }
            original.addSuppressed(e);
        }
    }

    /** Closes leases in reverse order; the first failure is thrown after all were tried. */
    static void closeAll(List<Lease> leases) {
        eachInReverse(leases, Lease::close);
    }

    /** Runs {@code action} on every item, last first; every item is tried, and the first failure is thrown afterwards. */
    private static <T> void eachInReverse(List<T> items, java.util.function.Consumer<T> action) {
        RuntimeException first = null;
        for (int i = items.size() - 1; i >= 0; i--) {
            try {
                action.accept(items.get(i));
            } catch (RuntimeException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    @Override
    public Lease heldLease() {
        List<Lease> views = new ArrayList<>(parts.size());
        for (DistributedLock part : parts) {
            views.add(part.heldLease());
        }
        return new MultiLease(name, views);
    }

    /** True if the calling thread holds every part. */
    @Override
    public boolean isHeldByCurrentThread() {
        return parts.stream().allMatch(DistributedLock::isHeldByCurrentThread);
    }

    /** The smallest hold count of the parts: how many times the whole multi-lock is held. */
    @Override
    public int getHoldCount() {
        return parts.stream().mapToInt(DistributedLock::getHoldCount).min().orElse(0);
    }

    /** True if any part is held by anyone (so acquiring the multi-lock would have to wait). */
    @Override
    public boolean isLocked() {
        for (DistributedLock part : parts) {
            if (part.isLocked()) {
                return true;
            }
        }
        return false;
    }

    /** Force-unlocks every part; true if any of them was held. */
    @Override
    public boolean forceUnlock() {
        boolean any = false;
        for (DistributedLock part : parts) {
            any |= part.forceUnlock();
        }
        return any;
    }

    @Override
    public void lock() {
        try {
            lockEach(part -> {
                part.lock();
                return true;
            });
        } catch (InterruptedException e) {
            throw new AssertionError("lock() of a part threw InterruptedException", e); // Lock.lock() never does
        }
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        lockEach(part -> {
            part.lockInterruptibly();
            return true;
        });
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        if (unit == null) {
            throw new IllegalArgumentException("unit must not be null");
        }
        long deadline = System.nanoTime() + Math.max(0, unit.toNanos(time));
        return lockEach(part -> part.tryLock(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
    }

    /** How one part is locked by {@link #lockEach}: false if it could not be locked in time. */
    private interface PartLocking {
        boolean lock(DistributedLock part) throws InterruptedException;
    }

    /** Locks every part in order; if one fails or is not locked, unlocks those already locked and returns false or throws. */
    private boolean lockEach(PartLocking locking) throws InterruptedException {
        List<DistributedLock> locked = new ArrayList<>(parts.size());
        boolean complete = false;
        Throwable failure = null;
        try {
            for (DistributedLock part : parts) {
                if (!locking.lock(part)) {
                    return false;
                }
                locked.add(part);
            }
            complete = true;
            return true;
        } catch (InterruptedException | RuntimeException | Error e) {
            failure = e;
            throw e;
        } finally {
            if (!complete) {
                rollBack(() -> unlockAll(locked), failure);
            }
        }
    }

    /**
     * Unlocks every part, in reverse order. Every part is unlocked even if one throws (for example
     * {@link LeaseLostException} for a part that was lost); the first exception is thrown afterwards.
     *
     * @throws IllegalMonitorStateException if the calling thread does not hold every part; nothing is released then
     */
    @Override
    public void unlock() {
        if (!isHeldByCurrentThread()) {
            throw new IllegalMonitorStateException("multi-lock " + name + " is not held by the current thread");
        }
        unlockAll(parts);
    }

    private static void unlockAll(List<DistributedLock> locked) {
        eachInReverse(locked, DistributedLock::unlock);
    }

    @Override
    public String toString() {
        return "MultiLock" + parts;
    }
}
