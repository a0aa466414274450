package io.distlock.internal;

import io.distlock.DistributedLock;
import io.distlock.LeaseLostException.Reason;
import io.distlock.LockClient;
import io.distlock.LockOptions;
import io.distlock.spi.EngineSettings;
import io.distlock.spi.LockBackend;
import io.distlock.spi.PollingAcquire;
import io.distlock.spi.QueueingAcquire;
import io.distlock.spi.SessionEvents;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The {@link LockClient} of every backend: owns the backend, the clock and its timer thread (the
 * watchdog), the event threads that run loss listeners, and the slots of the names in use. Public only
 * so that {@code LockEngine} can build it; not exported from the module.
 */
public final class EngineLockClient implements LockClient {
    /*
     * Threads: one timer thread (watchdog ticks, renewal answers, lingering unsubscribes) and at most
     * EVENT_THREADS event threads for onLost listeners, created on demand and gone when idle; a
     * listener that blocks holds one of them up, never more threads. Callers' threads do the acquiring.
     *
     * close(): every held lease is lost with CLIENT_CLOSED first (listeners told, a later unlock()
     * throws LeaseLostException), then all of them are released at once and close waits about one
     * operation timeout in all; threads waiting to acquire wake up and fail with IllegalStateException.
     */
    static final int EVENT_THREADS = 4;

    private final LockBackend backend;
    private final EngineSettings settings;
    private final LockEvents lockEvents;
    private final EngineClock clock;
    private final BackendCalls calls;
    private final OwnerIds ownerIds = new OwnerIds();
    private final ThreadPoolExecutor events;
    private final LeaseLosses losses;
    private final Watchdog watchdog;
    private final LockAcquirer acquirer;
    private final LockSlots slots;
    private final Set<Acquisition> held = ConcurrentHashMap.newKeySet();
    private final SessionState session;
    private final AtomicBoolean closed = new AtomicBoolean();

    /**
     * Creates the client; use {@link io.distlock.spi.LockEngine#newClient}.
     *
     * @throws IllegalArgumentException if the backend implements neither or both of {@link PollingAcquire}
     *     and {@link QueueingAcquire}, or refuses the default options
     */
    public EngineLockClient(LockBackend backend, EngineSettings settings) {
        this(backend, settings, new SystemClock(settings.threadNamePrefix() + "-watchdog"));
    }

    EngineLockClient(LockBackend backend, EngineSettings settings, EngineClock clock) {
        boolean polling = backend instanceof PollingAcquire;
        boolean queueing = backend instanceof QueueingAcquire;
        if (polling == queueing) {
            clock.shutdown();
            throw new IllegalArgumentException("backend " + backend.describe() + " must implement exactly one of PollingAcquire and "
                    + "QueueingAcquire (it implements " + (polling ? "both" : "neither") + ")");
        }
        try {
            backend.checkOptions(settings.defaultOptions());
        } catch (RuntimeException e) {
            clock.shutdown();
            throw e;
        }
        this.backend = backend;
        this.settings = settings;
        this.clock = clock;
        this.calls = new BackendCalls(backend);
        this.lockEvents = new LockEvents(settings.listeners());
        this.events = new ThreadPoolExecutor(EVENT_THREADS, EVENT_THREADS, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
                DaemonThreads.named(settings.threadNamePrefix() + "-events"));
        this.events.allowCoreThreadTimeOut(true);
        this.losses = new LeaseLosses(backend, acquisition -> watchdog().stop(acquisition));
        this.watchdog = new Watchdog(backend, clock, losses);
        this.session = new SessionState(held, acquisition -> losses.lose(acquisition, Reason.SESSION_LOST, session().lastLoss(), null));
        PollingAcquire pollingBackend = polling ? (PollingAcquire) backend : null;
        this.slots = new LockSlots(slot -> new ReleaseSignal(slot, pollingBackend, clock));
        this.acquirer = new LockAcquirer(this, polling ? new PollingGranter(this, pollingBackend)
                : new QueueGranter(this, (QueueingAcquire) backend));
        if (backend instanceof SessionEvents sessions) {
            sessions.addSessionListener(session);
        }
    }

    @Override
    public DistributedLock getLock(String name) {
        return getLock(name, settings.defaultOptions());
    }

    @Override
    public DistributedLock getLock(String name, LockOptions options) {
        LockNames.check(name);
        if (options == null) {
            throw new IllegalArgumentException("options must not be null");
        }
        if (options != settings.defaultOptions()) {
            backend.checkOptions(options);
        }
        checkOpen();
        return new EngineLock(this, name, options);
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            List<Acquisition> closing = new ArrayList<>();
            for (Acquisition acquisition : List.copyOf(held)) {
                if (losses.lose(acquisition, Reason.CLIENT_CLOSED, "the lock client for " + backend.describe() + " was closed", null)) {
                    closing.add(acquisition);
                }
            }
            acquirer.releaseAllForClose(closing);
            closing.forEach(held::remove);
            for (LockSlot slot : slots.inUse()) {
                slot.signal.shutdown(); // waiters wake up and find the client closed
                if (slot.gate.hasQueuedThreads()) {
                    slot.gate.release(); // so do threads queued at the gate, each passing it on to the next
                }
            }
            watchdog.shutdown();
        } finally {
            clock.shutdown();
            events.shutdown();
            backend.close();
        }
    }

    @Override
    public String toString() {
        return "LockClient[" + backend.describe() + (closed.get() ? ", closed" : "") + "]";
    }

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
        return settings.fallbackPoll().toNanos();
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

    LockAcquirer acquirer() {
        return acquirer;
    }

    LeaseLosses losses() {
        return losses;
    }

    LockSlots slots() {
        return slots;
    }

    SessionState session() {
        return session;
    }

    ExecutorService events() {
        return events;
    }

    /** Tracks a new acquisition for close() and session events; returns false if the client closed meanwhile. */
    boolean registerHeld(Acquisition acquisition, Grant grant) {
        session.register(acquisition, grant.sessionEpoch());
        return !closed.get();
    }

    void unregisterHeld(Acquisition acquisition) {
        held.remove(acquisition);
    }

    /** Returns how many leases this client holds now. */
    int heldCount() {
        return held.size();
    }
}
