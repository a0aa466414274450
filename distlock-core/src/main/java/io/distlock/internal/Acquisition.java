package io.distlock.internal;

import io.distlock.LeaseLostException;
import io.distlock.LockOptions;
import io.distlock.spi.ClockDrift;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
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
     * exactly once. Only LeaseLosses moves it to LOST. The hold count may only grow while it is positive
     * (re-entry by the owner thread) and only shrinks by one per unlock() or per lease handle close.
     *
     * The lease is trusted until the local deadline: the send time of the last confirmed acquire or
     * renew request plus the lease, less the clock drift allowance (ClockDrift). It is not trusted
     * while the backend's session is in doubt (suspended) or while its release is on the way.
     */
    private static final Logger log = LoggerFactory.getLogger(Acquisition.class);

    enum State { ACTIVE, RELEASED, LOST }

    final LockSlot slot;
    final String ownerId;
    final long fencingToken;
    final LockOptions options;
    /** The thread whose holds these are; null once detached (then no thread re-enters it). */
    volatile @Nullable Thread ownerThread;
    /** When the request that was granted was sent; renewals are timed from here, not from the answer. */
    final long sentNanos;
    /**
     * The grant's lease is shorter than the options' (a grant made on a queued waiter's behalf): the
     * watchdog renews it at once, also when autoRenew is off, to get the full lease.
     */
    final boolean claimFirst;
    /** The last token of the range the server grant reserved (local handoffs take the next ones); the token if one. */
    final long lastToken;
    /** The acquisition took its lease from another holder of this client ({@link CohortHandoff}). */
    final boolean handedOn;
    /** The backend session's epoch when the server grant's request was sent. */
    final long sessionEpoch;
    /** The acquisition took its lease from another holder of this client, or reserved tokens for that. */
    final boolean cohort;

    private final AtomicInteger holds = new AtomicInteger(1);
    private final AtomicReference<State> state = new AtomicReference<>(State.ACTIVE);
    private final AtomicBoolean slotFreed = new AtomicBoolean();
    private final ReentrantLock listenerLock = new ReentrantLock();
    private final List<Consumer<LeaseLostException>> listeners = new ArrayList<>(1);
    private final EngineClock clock;
    private final Executor events;
    private final LockEvents lockEvents;
    private final @Nullable LeaseHandle view;
    private volatile long validUntilNanos;
    /** When the request that set {@link #validUntilNanos} (the grant or a watchdog renewal) was sent. */
    private volatile long leaseFromNanos;
    /** When the server last confirmed the lease (its grant's or a renewal's answer arrived): how fresh a handoff is. */
    private volatile long confirmedNanos;
    private volatile boolean suspended;
    private volatile boolean releasing;
    private volatile @Nullable LeaseLostException loss;
    private volatile String lossDetail = "";

    /** The lease the last renewal by hand asked for, 0 if none. */
    volatile long renewedByHandNanos;
    /**
     * The watchdog's one renewal of a short grant ({@link #claimFirst}, without autoRenew) was confirmed: no watchdog
     * renewal can overlap a renewal by hand any more.
     */
    volatile boolean firstRenewalDone;

    /** Watchdog bookkeeping, changed only under the watchdog's lock. */
    volatile boolean watched;
    int queuedEntries;
    boolean expiryQueued;
    /** When the queued expiry check is due; an older one is stale (a renewal by hand queued an earlier one). */
    long expiryDueNanos;

    Acquisition(LockSlot slot, Grant grant, LockOptions options, EngineClock clock, Executor events, LockEvents lockEvents) {
        this.slot = slot;
        this.ownerId = grant.ownerId();
        this.fencingToken = grant.fencingToken();
        this.options = options;
        this.ownerThread = Thread.currentThread();
        this.sentNanos = grant.sentNanos();
        this.clock = clock;
        this.events = events;
        this.lockEvents = lockEvents;
        this.view = lockEvents.hasListeners() ? LeaseHandle.observing(this) : null; // no extra object per lock without listeners
        this.claimFirst = grant.leaseNanos() < options.leaseTime().toNanos();
        this.validUntilNanos = ClockDrift.deadlineNanos(grant.sentNanos(), java.time.Duration.ofNanos(grant.leaseNanos()));
        this.leaseFromNanos = grant.sentNanos();
        this.lastToken = grant.lastToken();
        this.confirmedNanos = grant.confirmedNanos();
        this.sessionEpoch = grant.sessionEpoch();
        this.handedOn = grant.handedOn();
        this.cohort = grant.lastToken() != grant.fencingToken() || handedOn;
    }

    /** Leaves the acquisition to no thread: called by the acquiring thread before anyone else sees it. */
    void detach() {
        Thread from = ownerThread;
        if (from != null) {
            slot.detached(this, from);
        }
        ownerThread = null;
    }

    /** Returns the storage this acquisition is held in. */
    io.distlock.spi.LockBackend backend() {
        return slot.space.backend;
    }

    String lockName() {
        return slot.name;
    }

    long validUntilNanos() {
        return validUntilNanos;
    }

    long leaseFromNanos() {
        return leaseFromNanos;
    }

    long confirmedNanos() {
        return confirmedNanos;
    }

    /**
     * Records a watchdog renewal confirmed by the backend for a request sent at {@code sentNanos}; returns false, and
     * records nothing, if the lease's local deadline had passed before the confirmation came (the caller loses it as
     * EXPIRED). That confirmation is late whatever it would set: from the deadline on, the lease was not valid, a holder
     * may have stopped on it, and whether the expiry check or the confirmation ran first (after a pause, both are due at
     * once) must not decide whether the lease comes back to life or listeners hear of a renewal of a lease past its time.
     */
    boolean confirmRenewal(long renewalSentNanos) {
        if (clock.nanoTime() - validUntilNanos >= 0) {
            return false;
        }
        Duration lease = options.leaseTime();
        long byHand = renewedByHandNanos;
        if (byHand > 0 && byHand < lease.toNanos()) {
            lease = Duration.ofNanos(byHand); // a renewal by hand may have come later at the server and set less
        }
        long candidate = ClockDrift.deadlineNanos(renewalSentNanos, lease);
        confirmedNanos = clock.nanoTime();
        if (candidate - validUntilNanos > 0) {
            leaseFromNanos = renewalSentNanos; // a local handoff times its lease and renewals from here
            validUntilNanos = candidate;
        }
        lockEvents.renewed(this);
        return true;
    }

    /**
     * Records a renewal by hand ({@code Lease#renew}) sent at {@code sentNanos} for {@code leaseNanos}: the deadline is
     * set, not only moved on, since the server's lease may now be shorter. Returns false, and records nothing, if the
     * local deadline had passed before the confirmation came, as {@link #confirmRenewal} does.
     */
    boolean confirmRenewalByHand(long renewalSentNanos, long leaseNanos) {
        if (clock.nanoTime() - validUntilNanos >= 0) {
            return false;
        }
        leaseFromNanos = renewalSentNanos;
        confirmedNanos = clock.nanoTime();
        validUntilNanos = ClockDrift.deadlineNanos(renewalSentNanos, Duration.ofNanos(leaseNanos));
        lockEvents.renewed(this);
        return true;
    }

    /** A renewal got no answer or an error (the watchdog retries it). */
    void renewalFailed(Throwable error) {
        lockEvents.renewalFailed(this, error);
    }

    /** The lease as listeners see it: one view per acquisition (listeners may key maps by it) that releases nothing. */
    LeaseHandle view() {
        if (view == null) {
            throw new IllegalStateException("no listeners, no view");
        }
        return view;
    }

    State state() {
        return Objects.requireNonNull(state.get()); // set to non-null states only
    }

    boolean isValid() {
        return state.get() == State.ACTIVE && !suspended && !releasing && clock.nanoTime() - validUntilNanos < 0;
    }

    /** Marks the lease untrusted (session in doubt) or trusted again. */
    void setSuspended(boolean suspended) {
        this.suspended = suspended;
    }

    /** Marks the lease untrusted from now on: its release is on the way (another holder may be granted before the answer). */
    void beginRelease() {
        releasing = true;
    }

    Duration remaining() {
        if (!isValid()) {
            return Duration.ZERO;
        }
        long left = validUntilNanos - clock.nanoTime();
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
     * Clears this acquisition from its slot, opens the slot's gate and stops using the slot, exactly
     * once, whichever of unlock, lease close and an early handoff gets there first.
     */
    void freeSlot() {
        if (slotFreed.compareAndSet(false, true)) {
            slot.unheld(this);
            slot.gate.release();
            slot.leave();
        }
    }

    boolean markReleased() {
        if (!state.compareAndSet(State.ACTIVE, State.RELEASED)) {
            return false;
        }
        lockEvents.ended(this);
        return true;
    }

    /**
     * Marks the lease lost and tells the listeners, once; returns false if it had already ended. Called
     * by {@link LeaseLosses} only.
     */
    boolean markLost(LeaseLostException lost, String detail) {
        List<Consumer<LeaseLostException>> toTell;
        listenerLock.lock();
        try {
            if (!state.compareAndSet(State.ACTIVE, State.LOST)) {
                return false;
            }
            lossDetail = detail;
            loss = lost;
            toTell = new ArrayList<>(listeners);
            listeners.clear();
        } finally {
            listenerLock.unlock();
        }
        log.warn("{}", lost.getMessage());
        toTell.forEach(listener -> tell(listener, lost));
        lockEvents.lost(this, lost);
        lockEvents.ended(this);
        return true;
    }

    /** Returns a fresh exception describing the loss (with the caller's stack), or null if not lost. */
    @Nullable LeaseLostException lossReport() {
        LeaseLostException lost = loss;
        if (lost == null) {
            return null;
        }
        return new LeaseLostException(lockName(), fencingToken, lost.reason(), lossDetail, lost);
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
        LeaseLostException lost = loss;
        if (lost != null) {
            tell(listener, lost);
        }
    }

    private void tell(Consumer<LeaseLostException> listener, LeaseLostException lost) {
        Runnable call = () -> {
            try {
                listener.accept(lost);
            } catch (RuntimeException | Error e) {
                log.error("onLost listener of lock '{}' threw", lockName(), e);
            }
        };
        try {
            events.execute(call);
        } catch (RuntimeException rejected) {
            call.run(); // the client is closing and its event threads are gone: tell on this thread instead
        }
    }

    @Override
    public String toString() {
        return "Acquisition[" + lockName() + ", token=" + fencingToken + ", " + state.get() + ", holds=" + holds.get() + "]";
    }
}
