package io.distlock.internal;

import io.distlock.DistributedLock;
import io.distlock.DistributedReadWriteLock;
import io.distlock.DistributedSemaphore;
import io.distlock.LeaseLostException.Reason;
import io.distlock.LockClient;
import io.distlock.LockOptions;
import io.distlock.spi.EngineSettings;
import io.distlock.spi.EngineState;
import io.distlock.spi.LockBackend;
import io.distlock.spi.ReadWriteStorage;
import io.distlock.spi.SemaphoreStorage;
import io.distlock.spi.SessionEvents;
import io.distlock.spi.StateCounts;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The {@link LockClient} of every backend: owns the backend, the {@link EngineContext} its engine classes share (the
 * clock and its timer thread, the watchdog, the event threads that run loss listeners) and the {@link KindSpaces}
 * (a {@link LockSpace} per kind of lock in use). Built through {@code LockEngine}; nothing in the engine refers
 * back to it.
 */
final class EngineLockClient implements LockClient {
    /*
     * close(): every held lease is lost with CLIENT_CLOSED first (listeners told, a later unlock()
     * throws LeaseLostException), then all of them are released at once and close waits about one
     * operation timeout in all; threads waiting to acquire wake up and fail with IllegalStateException.
     */

    private final EngineSettings settings;
    private final EngineContext engine;
    private final KindSpaces spaces;

    /**
     * Creates the client.
     *
     * @throws IllegalArgumentException if the backend implements neither or both of {@code PollingAcquire}
     *     and {@code QueueingAcquire}, or refuses the default options
     */
    EngineLockClient(LockBackend backend, EngineSettings settings) {
        this(backend, settings, new SystemClock(settings.threadNamePrefix() + "-watchdog"));
    }

    EngineLockClient(LockBackend backend, EngineSettings settings, EngineClock clock) {
        this.settings = settings;
        this.engine = new EngineContext(backend, settings, clock);
        try {
            this.spaces = new KindSpaces(engine, settings.defaultOptions());
        } catch (RuntimeException e) {
            clock.shutdown();
            engine.events().shutdown();
            throw e;
        }
        if (backend instanceof SessionEvents sessions) {
            sessions.addSessionListener(engine.session());
        }
    }

    @Override
    public DistributedLock getLock(String name) {
        return getLock(name, settings.defaultOptions());
    }

    @Override
    public DistributedLock getLock(String name, LockOptions options) {
        LockSpace plain = spaces.plain();
        return new EngineLock(engine, plain, checkUse(plain, name, options), options, null);
    }

    @Override
    public DistributedLock getFairLock(String name) {
        return getFairLock(name, settings.defaultOptions());
    }

    @Override
    public DistributedLock getFairLock(String name, LockOptions options) {
        LockSpace fair = spaces.fair();
        return new EngineLock(engine, fair, checkUse(fair, name, options), options, null);
    }

    @Override
    public DistributedReadWriteLock getReadWriteLock(String name) {
        return getReadWriteLock(name, settings.defaultOptions());
    }

    @Override
    public DistributedReadWriteLock getReadWriteLock(String name, LockOptions options) {
        ReadWriteStorage storage = spaces.readWriteStorage();
        LockSpace readers = spaces.readers(storage);
        LockSpace writers = spaces.writers(storage);
        checkUse(writers, name, options);
        return new EngineReadWriteLock(engine, storage, readers, writers, checkUse(readers, name, options), options);
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
        SemaphoreStorage storage = spaces.semaphoreStorage();
        LockSpace space = spaces.pinSemaphoreSpace(storage, permits);
        try {
            return new EngineSemaphore(engine, spaces, storage, checkUse(space, name, options), permits, options);
        } finally {
            spaces.unpin(space);
        }
    }

    /** Returns how many kinds of lock (with one per number of permits for semaphores) this client keeps state for. */
    int kindSpaceCount() {
        return spaces.kindSpaceCount();
    }

    /** Returns how many names are in use across every kind. */
    int slotsInUse() {
        return spaces.all().stream().mapToInt(space -> space.slots.size()).sum();
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
        engine.checkOpen();
        return name;
    }

    @Override
    public void close() {
        if (!engine.markClosed()) {
            return;
        }
        LockBackend backend = engine.backend();
        try {
            List<Acquisition> closing = new ArrayList<>();
            for (Acquisition acquisition : engine.held()) {
                if (engine.losses().lose(acquisition, Reason.CLIENT_CLOSED, "the lock client for " + backend.describe() + " was closed", null)) {
                    closing.add(acquisition);
                }
            }
            // leases parked for a local handoff are on no held list: claim them before the gates open below
            List<java.util.concurrent.CompletableFuture<io.distlock.spi.OwnerCheck>> parked = new ArrayList<>();
            for (LockSpace space : spaces.all()) {
                for (LockSlot slot : space.slots.inUse()) {
                    java.util.concurrent.CompletableFuture<io.distlock.spi.OwnerCheck> release = CohortHandoff.releaseForClose(slot);
                    if (release != null) {
                        parked.add(release);
                    }
                }
            }
            LockAcquirer.releaseAllForClose(engine, closing, parked);
            closing.forEach(engine::unregisterHeld);
            for (LockSpace space : spaces.all()) {
                for (LockSlot slot : space.slots.inUse()) {
                    slot.signal.shutdown(); // waiters wake up and find the client closed
                    if (slot.gate.hasQueuedThreads()) {
                        slot.gate.release(); // so do threads queued at the gate, each passing it on to the next
                    }
                }
            }
            engine.watchdog().shutdown();
        } finally {
            engine.clock().shutdown();
            engine.events().shutdown();
            backend.close();
        }
    }

    @Override
    public String toString() {
        return "LockClient[" + engine.backend().describe() + (engine.isClosed() ? ", closed" : "") + "]";
    }

    /** Returns what this client keeps per name now (see {@link EngineState}). */
    EngineState state(boolean endLingers) {
        if (endLingers) {
            for (LockSpace space : spaces.all()) {
                space.slots.inUse().forEach(slot -> slot.signal.endLinger());
            }
        }
        Map<String, Integer> backendCounts = new TreeMap<>();
        Set<Object> asked = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
        for (LockSpace space : spaces.all()) {
            if (space.backend instanceof StateCounts counts && asked.add(space.backend)) {
                if (endLingers) {
                    counts.endLingers();
                }
                counts.stateCounts().forEach((what, count) -> backendCounts.merge(what, count, Integer::sum));
            }
        }
        return new EngineState(engine.isClosed(), engine.heldCount(), slotsInUse(), spaces.semaphoreSpaceCount(), engine.session().lossWakeUpCount(), backendCounts);
    }

    /** Returns what the engine classes of this client share (for tests). */
    EngineContext engine() {
        return engine;
    }

    /** Returns the slots of the plain locks (for tests). */
    LockSlots slots() {
        return spaces.plain().slots;
    }

    /** Returns how many leases this client holds now. */
    int heldCount() {
        return engine.heldCount();
    }
}
