package io.distlock.internal;

import io.distlock.DistributedLock;
import io.distlock.DistributedReadWriteLock;
import io.distlock.DistributedSemaphore;
import io.distlock.LeaseLostException.Reason;
import io.distlock.LockClient;
import io.distlock.LockOptions;
import io.distlock.spi.EngineSettings;
import io.distlock.spi.LockBackend;
import io.distlock.spi.LockKinds;
import io.distlock.spi.ReadWriteStorage;
import io.distlock.spi.SemaphoreStorage;
import io.distlock.spi.SessionEvents;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The {@link LockClient} of every backend: owns the backend, the clock and its timer thread (the
 * watchdog), the event threads that run loss listeners, and a {@link LockSpace} per kind of lock in
 * use (plain; fair, read, write and semaphores where the backend has {@link LockKinds}). Public only
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
    private final LockSpace plain;
    private final @Nullable LockKinds kinds;
    private final ReentrantLock kindsLock = new ReentrantLock();
    private final Map<String, LockSpace> kindSpaces = new ConcurrentHashMap<>();
    /** Read-write and semaphore storages by what they store, made on first use; guarded by kindsLock. */
    private final Map<String, Object> kindStorages = new java.util.HashMap<>();
    private final Set<Acquisition> held = ConcurrentHashMap.newKeySet();
    private final SessionState session;
    private final AtomicBoolean closed = new AtomicBoolean();

    /**
     * Creates the client; use {@link io.distlock.spi.LockEngine#newClient}.
     *
     * @throws IllegalArgumentException if the backend implements neither or both of {@code PollingAcquire}
     *     and {@code QueueingAcquire}, or refuses the default options
     */
    public EngineLockClient(LockBackend backend, EngineSettings settings) {
        this(backend, settings, new SystemClock(settings.threadNamePrefix() + "-watchdog"));
    }

    EngineLockClient(LockBackend backend, EngineSettings settings, EngineClock clock) {
        this.backend = backend;
        this.settings = settings;
        this.clock = clock;
        this.calls = new BackendCalls(backend);
        this.lockEvents = new LockEvents(settings.listeners());
        this.losses = new LeaseLosses(backend, acquisition -> watchdog().stop(acquisition));
        this.watchdog = new Watchdog(clock, losses);
        this.session = new SessionState(held, acquisition -> losses.lose(acquisition, Reason.SESSION_LOST, session().lastLoss(), null));
        this.kinds = backend instanceof LockKinds capable ? capable : null;
        try {
            this.plain = new LockSpace(this, "lock", backend, false, 1);
            backend.checkOptions(settings.defaultOptions());
        } catch (RuntimeException e) {
            clock.shutdown();
            throw e;
        }
        this.events = new ThreadPoolExecutor(EVENT_THREADS, EVENT_THREADS, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
                DaemonThreads.named(settings.threadNamePrefix() + "-events"));
        this.events.allowCoreThreadTimeOut(true);
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
        return new EngineLock(this, plain, checkUse(plain, name, options), options, null);
    }

    @Override
    public DistributedLock getFairLock(String name) {
        return getFairLock(name, settings.defaultOptions());
    }

    @Override
    public DistributedLock getFairLock(String name, LockOptions options) {
        LockSpace fair = kindSpace("fair", "fair lock", LockKinds::fairLocks, false, 1);
        return new EngineLock(this, fair, checkUse(fair, name, options), options, null);
    }

    @Override
    public DistributedReadWriteLock getReadWriteLock(String name) {
        return getReadWriteLock(name, settings.defaultOptions());
    }

    @Override
    public DistributedReadWriteLock getReadWriteLock(String name, LockOptions options) {
        ReadWriteStorage storage = readWriteStorage();
        LockSpace readers = kindSpace("read", "read lock", k -> storage.readers(), true, Integer.MAX_VALUE);
        LockSpace writers = kindSpace("write", "write lock", k -> storage.writers(), false, 1);
        checkUse(writers, name, options);
        return new EngineReadWriteLock(this, storage, readers, writers, checkUse(readers, name, options), options);
    }

    @Override
    public DistributedSemaphore getSemaphore(String name, int permits) {
        return getSemaphore(name, permits, settings.defaultOptions());
    }

    @Override
    public DistributedSemaphore getSemaphore(String name, int permits, LockOptions options) {
        if (permits <= 0) {
            throw new IllegalArgumentException("permits must be positive, was " + permits);
        }
        SemaphoreStorage storage = semaphoreStorage();
        LockSpace space = pinSemaphoreSpace(storage, permits);
        try {
            return new EngineSemaphore(this, storage, checkUse(space, name, options), permits, options);
        } finally {
            unpin(space);
        }
    }

    /**
     * Returns the space of semaphores with {@code permits} permits, made if needed, pinned so that it stays in use until
     * {@link #unpin}: a call that may enter one of its slots pins it for as long as it may (see LockSpace).
     */
    LockSpace pinSemaphoreSpace(SemaphoreStorage storage, int permits) {
        String key = "semaphore/" + permits;
        kindsLock.lock();
        try {
            LockSpace space = kindSpaces.get(key);
            if (space == null) {
                LockBackend permitsBackend = storage.withPermits(permits);
                permitsBackend.checkOptions(settings.defaultOptions());
                space = new LockSpace(this, "semaphore", permitsBackend, true, permits, unused -> dropIfUnused(key, unused));
                kindSpaces.put(key, space);
            }
            space.pins++;
            return space;
        } finally {
            kindsLock.unlock();
        }
    }

    /** Ends a pin of {@link #pinSemaphoreSpace}. */
    void unpin(LockSpace space) {
        kindsLock.lock();
        try {
            space.pins--;
        } finally {
            kindsLock.unlock();
        }
        dropIfUnused("semaphore/" + space.localPermits, space);
    }

    /** Forgets a semaphore space that no call pins and no slot uses (its permits were all released). */
    private void dropIfUnused(String key, LockSpace space) {
        kindsLock.lock();
        try {
            if (space.pins == 0 && space.slots.size() == 0) {
                kindSpaces.remove(key, space);
            }
        } finally {
            kindsLock.unlock();
        }
    }

    /** Returns how many kinds of lock (with one per number of permits for semaphores) this client keeps state for. */
    int kindSpaceCount() {
        return kindSpaces.size();
    }

    /** Returns how many names are in use across every kind. */
    int slotsInUse() {
        return spaces().stream().mapToInt(space -> space.slots.size()).sum();
    }

    /** Validates a name and options for a kind, and that the client is open; returns the name. */
    private String checkUse(LockSpace space, String name, LockOptions options) {
        LockNames.check(name);
        if (options == null) {
            throw new IllegalArgumentException("options must not be null");
        }
        if (options != settings.defaultOptions()) {
            space.backend.checkOptions(options);
        }
        checkOpen();
        return name;
    }

    private ReadWriteStorage readWriteStorage() {
        return storage("read-write locks", LockKinds::readWriteLocks);
    }

    private SemaphoreStorage semaphoreStorage() {
        return storage("semaphores", LockKinds::semaphores);
    }

    /** Returns the storage {@code pick} takes from the backend's kinds, asked once per client; unsupported (naming {@code what}) if none. */
    @SuppressWarnings("unchecked")
    private <T> T storage(String what, Function<LockKinds, @Nullable T> pick) {
        kindsLock.lock();
        try {
            Object storage = kindStorages.get(what);
            if (storage == null) {
                storage = kinds == null ? null : pick.apply(kinds);
                if (storage == null) {
                    throw unsupported(what);
                }
                kindStorages.put(what, storage);
            }
            return (T) storage;
        } finally {
            kindsLock.unlock();
        }
    }

    /** Returns the space of a kind, made on first use from the storage {@code storage} picks. */
    private LockSpace kindSpace(String key, String kind, Function<LockKinds, @Nullable LockBackend> storage, boolean shared, int localPermits) {
        LockSpace space = kindSpaces.get(key);
        if (space != null) {
            return space;
        }
        kindsLock.lock();
        try {
            space = kindSpaces.get(key);
            if (space == null) {
                LockBackend kindBackend = kinds == null ? null : storage.apply(kinds);
                if (kindBackend == null) {
                    throw unsupported(kind + "s");
                }
                kindBackend.checkOptions(settings.defaultOptions());
                space = new LockSpace(this, kind, kindBackend, shared, localPermits);
                kindSpaces.put(key, space);
            }
            return space;
        } finally {
            kindsLock.unlock();
        }
    }

    private UnsupportedOperationException unsupported(String what) {
        return new UnsupportedOperationException("the lock backend " + backend.describe() + " has no " + what
                + " (" + getClass().getSimpleName() + " over " + backend.getClass().getSimpleName() + ")");
    }

    /** Returns the spaces in use: the plain one and every kind made so far. */
    private List<LockSpace> spaces() {
        List<LockSpace> all = new ArrayList<>(1 + kindSpaces.size());
        all.add(plain);
        all.addAll(kindSpaces.values());
        return all;
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
            LockAcquirer.releaseAllForClose(this, closing);
            closing.forEach(held::remove);
            for (LockSpace space : spaces()) {
                for (LockSlot slot : space.slots.inUse()) {
                    slot.signal.shutdown(); // waiters wake up and find the client closed
                    if (slot.gate.hasQueuedThreads()) {
                        slot.gate.release(); // so do threads queued at the gate, each passing it on to the next
                    }
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

    /** Returns the slots of the plain locks (for tests). */
    LockSlots slots() {
        return plain.slots;
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
