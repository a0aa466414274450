package io.distlock;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

/**
 * A named lock shared by every client of the same backend. Reentrant, and thread-bound like
 * {@link java.util.concurrent.locks.ReentrantLock} for the {@link Lock} methods; the
 * {@link Lease}-returning methods hand out a lease that any thread may close.
 *
 * <h2>Two ways to use it</h2>
 * <pre>{@code
 * lock.lock();                                   // like ReentrantLock
 * try { ... } finally { lock.unlock(); }
 *
 * try (Lease lease = lock.acquire()) {           // a lease: closable from any thread
 *     db.write(order, lease.fencingToken());     // let the resource reject stale holders
 * }
 * }</pre>
 *
 * <p>Both share one hold: while a thread holds the lock, further {@code lock()} or {@code acquire()}
 * calls by that thread re-enter it (hold count + 1) and keep its fencing token. The backend lock is
 * released when the last hold is released.
 *
 * <h2>Leases and loss</h2>
 * The backend lock is held under a lease that the watchdog renews (see {@link LockOptions}). If the
 * lease is lost (expired during a pause, taken over, force-unlocked) the holder is told: the
 * {@link Lease} turns invalid, {@link Lease#onLost} listeners fire, and {@link #unlock()} throws
 * {@link LeaseLostException}. The new owner's lock is never touched.
 *
 * <h2>Waiting</h2>
 * Waiters park; they are woken by the backend's release notifications, with a bounded fallback poll.
 * Threads of one client queue locally (first come, first served), so only one of them talks to the
 * backend at a time. A wait may exceed its time limit by at most one backend round trip.
 */
public interface DistributedLock extends Lock {

    /** Returns the lock's name. */
    String name();

    /** Returns the options this lock acquires with. */
    LockOptions options();

    /**
     * Acquires the lock, waiting as long as it takes, and returns the lease.
     *
     * @throws InterruptedException if interrupted while waiting; nothing is held then
     * @throws BackendUnavailableException if the backend does not answer within the operation timeout
     * @throws IllegalStateException if the client is closed
     */
    Lease acquire() throws InterruptedException;

    /**
     * Acquires the lock, waiting at most {@code waitTime}, and returns the lease.
     *
     * @throws LockAcquireTimeoutException if the lock was not acquired within {@code waitTime}
     * @throws IllegalArgumentException if {@code waitTime} is null or negative
     * @throws InterruptedException if interrupted while waiting; nothing is held then
     * @throws BackendUnavailableException if the backend does not answer within the operation timeout
     */
    Lease acquire(Duration waitTime) throws InterruptedException;

    /**
     * Attempts to acquire the lock, waiting at most {@code waitTime} (zero: one attempt).
     *
     * @return the lease, or empty if the lock stayed held by someone else
     * @throws IllegalArgumentException if {@code waitTime} is null or negative
     * @throws InterruptedException if interrupted while waiting; nothing is held then
     * @throws BackendUnavailableException if the backend does not answer within the operation timeout
     */
    Optional<Lease> tryAcquire(Duration waitTime) throws InterruptedException;

    /**
     * Attempts to acquire the lock for work that no single thread carries, such as a
     * {@code CompletableFuture} chain or a reactive pipeline, waiting at most {@code waitTime} (zero: one
     * attempt). The lease belongs to no thread: no thread re-enters it, so any further acquisition of this
     * lock in this client, on any thread, waits until the lease is closed; {@link #unlock()} and
     * {@link #heldLease()} do not see it. Only {@link Lease#close()} releases it, from any thread.
     *
     * @return the lease, or empty if the lock stayed held within {@code waitTime}
     * @throws IllegalArgumentException if {@code waitTime} is null or negative
     * @throws IllegalStateException if the calling thread holds this lock itself (it would wait for itself)
     * @throws InterruptedException if interrupted while waiting; nothing is held then
     * @throws BackendUnavailableException if the backend does not answer within the operation timeout
     */
    Optional<Lease> tryAcquireDetached(Duration waitTime) throws InterruptedException;

    /**
     * Returns the calling thread's current lease: its fencing token, validity and loss listeners.
     * Closing the returned view releases nothing; use {@link #unlock()} or the lease from
     * {@link #acquire()}.
     *
     * @throws IllegalMonitorStateException if the calling thread does not hold the lock
     */
    Lease heldLease();

    /** Returns whether the calling thread holds this lock (its lease may still have been lost). */
    boolean isHeldByCurrentThread();

    /** Returns how many holds the calling thread has on this lock, 0 if none. */
    int getHoldCount();

    /**
     * Returns whether anyone, on any client, holds the lock, as the backend sees it now.
     *
     * @throws BackendUnavailableException if the backend does not answer within the operation timeout
     */
    boolean isLocked();

    /**
     * Frees the lock whoever holds it. Administrative: the holder is not asked, and learns of the loss
     * at its next renewal. Waiters are woken.
     *
     * @return true if the lock was held and is now free
     * @throws BackendUnavailableException if the backend does not answer within the operation timeout
     */
    boolean forceUnlock();

    /**
     * Acquires the lock, waiting as long as it takes; an interrupt does not end the wait, and is re-asserted
     * (the flag is set) when the call returns.
     *
     * @throws BackendUnavailableException if the backend does not answer within the operation timeout
     */
    @Override
    void lock();

    /**
     * Acquires the lock unless interrupted. Same as {@link #acquire()} without the lease.
     *
     * @throws InterruptedException if interrupted while waiting; nothing is held or left queued then
     */
    @Override
    void lockInterruptibly() throws InterruptedException;

    /**
     * Makes one attempt to acquire the lock; returns whether it is now held by the calling thread. An
     * interrupt is re-asserted and counts as not acquired.
     */
    @Override
    default boolean tryLock() {
        try {
            return tryLock(0, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * Attempts to acquire the lock within the given time; returns whether it is held.
     *
     * @throws InterruptedException if interrupted while waiting; nothing is held or left queued then
     */
    @Override
    boolean tryLock(long time, TimeUnit unit) throws InterruptedException;

    /**
     * Releases one hold of the calling thread; the backend lock is released with the last one.
     *
     * @throws IllegalMonitorStateException if the calling thread does not hold the lock
     * @throws LeaseLostException if the lease had been lost; the local hold is cleared all the same,
     *     and the new owner's lock is untouched
     * @throws BackendUnavailableException if the release could not be confirmed; renewal has stopped,
     *     so the lock expires after its lease at the latest
     */
    @Override
    void unlock();

    /** Not supported: a distributed lock has no conditions. */
    @Override
    default Condition newCondition() {
        throw new UnsupportedOperationException("distributed locks do not support conditions: " + name());
    }
}
