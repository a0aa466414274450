package io.distlock.internal;

import io.distlock.LeaseLostException.Reason;
import io.distlock.spi.EngineSettings;
import io.distlock.spi.LockBackend;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What every engine class of one client shares, handed down from {@link EngineLockClient} when it is built: the
 * clock, the call policy, owner ids, the session state, the watchdog, loss reporting, the listeners and their
 * threads, the held leases and whether the client is closed. The services are made once here and never replaced;
 * no engine class reaches back into the client (docs/architecture.md, "The engine is a tree").
 */
final class EngineContext {
    /*
     * Threads: one timer thread (the clock: watchdog ticks, renewal answers, lingering unsubscribes) and at most
     * EVENT_THREADS event threads for onLost listeners, created on demand and gone when idle; a listener that
     * blocks holds one of them up, never more threads. Callers' threads do the acquiring.
     */
    static final int EVENT_THREADS = 4;

    private final LockBackend backend;
    private final long fallbackPollNanos;
    private final LockEvents lockEvents;
    private final EngineClock clock;
    private final BackendCalls calls;
    private final OwnerIds ownerIds = new OwnerIds();
    private final ThreadPoolExecutor events;
    private final LeaseLosses losses;
    private final Watchdog watchdog;
    private final Set<Acquisition> held = ConcurrentHashMap.newKeySet();
    private final SessionState session;
    private final AtomicBoolean closed = new AtomicBoolean();

    EngineContext(LockBackend backend, EngineSettings settings, EngineClock clock) {
        this.backend = backend;
        this.fallbackPollNanos = settings.fallbackPoll().toNanos();
        this.clock = clock;
        this.calls = new BackendCalls(backend);
        this.lockEvents = new LockEvents(settings.listeners());
        this.losses = new LeaseLosses(backend, acquisition -> watchdog().stop(acquisition));
        this.watchdog = new Watchdog(clock, losses);
        this.session = new SessionState(held, acquisition -> losses.lose(acquisition, Reason.SESSION_LOST, session().lastLoss(), null));
        // no thread starts before the first loss is reported
        this.events = new ThreadPoolExecutor(EVENT_THREADS, EVENT_THREADS, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
                DaemonThreads.named(settings.threadNamePrefix() + "-events"));
        this.events.allowCoreThreadTimeOut(true);
    }

    /** Throws if the client is closed. */
    void checkOpen() {
        if (closed.get()) {
            throw new IllegalStateException("lock client for " + backend.describe() + " is closed");
        }
    }

    /** Returns {@code failure}, or, if the client closed meanwhile (which can make backend calls fail), the closed-client error. */
    RuntimeException closedOr(RuntimeException failure) {
        if (closed.get() && !(failure instanceof IllegalStateException)) {
            return new IllegalStateException("lock client for " + backend.describe() + " is closed", failure);
        }
        return failure;
    }

    boolean isClosed() {
        return closed.get();
    }

    /** Marks the client closed; returns false if it was already. */
    boolean markClosed() {
        return closed.compareAndSet(false, true);
    }

    /** Tracks a new acquisition for close() and session events; returns false if the client closed meanwhile. */
    boolean registerHeld(Acquisition acquisition, Grant grant) {
        session.register(acquisition, grant.sessionEpoch());
        return !closed.get();
    }

    void unregisterHeld(Acquisition acquisition) {
        held.remove(acquisition);
    }

    /** Returns the leases held now (a copy). */
    List<Acquisition> held() {
        return List.copyOf(held);
    }

    /** Returns how many leases this client holds now. */
    int heldCount() {
        return held.size();
    }

    /** Returns the backend of the plain locks: what this client is a client of (for messages and close). */
    LockBackend backend() {
        return backend;
    }

    LockEvents lockEvents() {
        return lockEvents;
    }

    EngineClock clock() {
        return clock;
    }

    long fallbackPollNanos() {
        return fallbackPollNanos;
    }

    BackendCalls calls() {
        return calls;
    }

    OwnerIds ownerIds() {
        return ownerIds;
    }

    Watchdog watchdog() {
        return watchdog;
    }

    LeaseLosses losses() {
        return losses;
    }

    SessionState session() {
        return session;
    }

    ExecutorService events() {
        return events;
    }
}
