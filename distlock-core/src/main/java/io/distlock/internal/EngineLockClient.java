package io.distlock.internal;

import io.distlock.DistributedLock;
import io.distlock.LockClient;
import io.distlock.LockOptions;
import io.distlock.spi.EngineSettings;
import io.distlock.spi.LockBackend;
import io.distlock.spi.SessionEvents;
import io.distlock.spi.SessionEvents.SessionListener;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The {@link LockClient} of every backend: owns the backend, one watchdog thread, the event threads
 * that run loss listeners, and the per-name slots. Public only so that {@code LockEngine} can build it;
 * not exported from the module.
 */
public final class EngineLockClient implements LockClient {
    private final LockBackend backend;
    private final EngineSettings settings;
    private final BackendCalls calls;
    private final OwnerIds ownerIds = new OwnerIds();
    private final ScheduledThreadPoolExecutor scheduler;
    private final ExecutorService events;
    private final Watchdog watchdog;
    private final LockAcquirer acquirer;
    private final ConcurrentHashMap<String, LockSlot> slots = new ConcurrentHashMap<>();
    private final Set<Acquisition> held = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean closed = new AtomicBoolean();

    /** Creates the client; use {@link io.distlock.spi.LockEngine#newClient}. */
    public EngineLockClient(LockBackend backend, EngineSettings settings) {
        this.backend = backend;
        this.settings = settings;
        this.calls = new BackendCalls(backend);
        this.scheduler = new ScheduledThreadPoolExecutor(1, daemonThreads(settings.threadNamePrefix() + "-watchdog"));
        this.scheduler.setRemoveOnCancelPolicy(true);
        this.events = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 30, TimeUnit.SECONDS, new SynchronousQueue<>(),
                daemonThreads(settings.threadNamePrefix() + "-events"));
        this.watchdog = new Watchdog(backend, scheduler, this::loseAndLetGo);
        this.acquirer = new LockAcquirer(this, settings.fallbackPoll().toNanos());
        if (backend instanceof SessionEvents sessions) {
            sessions.addSessionListener(new SessionListener() {
                @Override
                public void suspended() {
                    held.forEach(acquisition -> acquisition.setSuspended(true));
                }

                @Override
                public void reconnected() {
                    held.forEach(acquisition -> acquisition.setSuspended(false));
                }

                @Override
                public void lost(String reason) {
                    held.forEach(acquisition -> loseAndLetGo(acquisition, reason));
                }
            });
        }
    }

    /**
     * Marks a lease lost and gives up its claim in the backend at once (compare-and-release with its
     * own owner id, so it can only free what is still ours), instead of leaving it to expire.
     */
    void loseAndLetGo(Acquisition acquisition, String reason) {
        if (lose(acquisition, reason)) {
            backend.release(acquisition.lockName(), acquisition.ownerId).exceptionally(error -> false);
        }
    }

    /** Marks a lease lost (listeners told once) and stops watching it; false if it had already ended. */
    boolean lose(Acquisition acquisition, String reason) {
        if (!acquisition.markLost(reason, null)) {
            return false;
        }
        watchdog.stop(acquisition);
        return true;
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
        checkOpen();
        LockSlot slot = slots.computeIfAbsent(name, n -> new LockSlot(n, new ReleaseSignal(n, backend, scheduler)));
        return new EngineLock(this, slot, options);
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            List<Acquisition> toRelease = new ArrayList<>(held);
            for (Acquisition acquisition : toRelease) {
                acquirer.releaseForClose(acquisition);
            }
            for (LockSlot slot : slots.values()) {
                slot.signal.shutdown();
            }
            watchdog.shutdown();
        } finally {
            scheduler.shutdownNow();
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

    LockBackend backend() {
        return backend;
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

    ExecutorService events() {
        return events;
    }

    /** Tracks a new acquisition for close(); returns false if the client closed meanwhile. */
    boolean registerHeld(Acquisition acquisition) {
        held.add(acquisition);
        return !closed.get();
    }

    void unregisterHeld(Acquisition acquisition) {
        held.remove(acquisition);
    }

    private static ThreadFactory daemonThreads(String prefix) {
        AtomicInteger count = new AtomicInteger();
        ThreadFactory base = Executors.defaultThreadFactory();
        return runnable -> {
            Thread thread = base.newThread(runnable);
            thread.setName(prefix + "-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }
}
