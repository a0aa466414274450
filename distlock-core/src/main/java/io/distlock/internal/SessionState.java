package io.distlock.internal;

import io.distlock.spi.SessionEvents.SessionListener;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * What the backend last reported about its session (for backends with {@link io.distlock.spi.SessionEvents}),
 * applied to held leases, including those whose grant was on its way while the session changed.
 */
final class SessionState implements SessionListener {
    /*
     * The race this closes: a grant requested before SUSPENDED (or before the session was lost) whose
     * acquisition is registered after the event. The event handlers and registration run under one lock:
     * either the event sees the new acquisition in `held`, or the registration sees the event in the
     * flags. The epoch counts session losses; a grant whose request was sent in an earlier epoch may
     * belong to the dead session (its ephemeral node gone), so it is lost at once.
     *
     * Waiters are bound to a session too: a queue ticket lives on the session it joined in. QueueGranter
     * registers a wake-up for the length of its wait; a loss runs them all (after the epoch moved), so a
     * waiter learns at once that its place is gone instead of at its next poll.
     */
    private final ReentrantLock lock = new ReentrantLock();
    private final Set<Acquisition> held;
    private final Consumer<Acquisition> onSessionLost;
    private final Set<Runnable> lossWakeUps = ConcurrentHashMap.newKeySet();
    private boolean suspended;
    private long epoch;
    private String lastLoss = "";

    SessionState(Set<Acquisition> held, Consumer<Acquisition> onSessionLost) {
        this.held = held;
        this.onSessionLost = onSessionLost;
    }

    /** Returns the current epoch, to record with a request as it is sent. */
    long epoch() {
        lock.lock();
        try {
            return epoch;
        } finally {
            lock.unlock();
        }
    }

    /** Adds a new acquisition to {@code held}, applying what happened to the session since its request was sent. */
    void register(Acquisition acquisition, long requestEpoch) {
        boolean lost;
        lock.lock();
        try {
            held.add(acquisition);
            lost = requestEpoch != epoch;
            if (!lost && suspended) {
                acquisition.setSuspended(true);
            }
        } finally {
            lock.unlock();
        }
        if (lost) {
            onSessionLost.accept(acquisition);
        }
    }

    /** Runs {@code wakeUp} at every session loss until {@link #stopWakingOnLoss}; each call registers a distinct object. */
    void wakeOnLoss(Runnable wakeUp) {
        lossWakeUps.add(wakeUp);
    }

    /** Stops running {@code wakeUp} at session losses. */
    void stopWakingOnLoss(Runnable wakeUp) {
        lossWakeUps.remove(wakeUp);
    }

    /** Returns how many waiters are registered to be woken by a session loss. */
    int lossWakeUpCount() {
        return lossWakeUps.size();
    }

    /** Returns how the last session loss was described. */
    String lastLoss() {
        return lastLoss;
    }

    @Override
    public void suspended() {
        lock.lock();
        try {
            suspended = true;
            held.forEach(acquisition -> acquisition.setSuspended(true));
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void reconnected() {
        lock.lock();
        try {
            suspended = false;
            held.forEach(acquisition -> acquisition.setSuspended(false));
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void lost(String reason) {
        List<Acquisition> toLose;
        lock.lock();
        try {
            epoch++;
            suspended = false;
            lastLoss = reason;
            toLose = List.copyOf(held); // later registrations check the epoch themselves
        } finally {
            lock.unlock();
        }
        toLose.forEach(onSessionLost);
        lossWakeUps.forEach(Runnable::run);
    }
}
