package io.distlock.internal;

import io.distlock.LockOptions;
import io.distlock.spi.LockBackend;
import io.distlock.spi.LockKinds;
import io.distlock.spi.ReadWriteStorage;
import io.distlock.spi.SemaphoreStorage;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The {@link LockSpace}s of one client: the plain locks' and, made on first use, one per other kind the backend
 * stores through {@link LockKinds} (fair; read and write; a semaphore space per number of permits, pinned while a
 * call may enter it and dropped when unused).
 */
final class KindSpaces {
    private final EngineContext engine;
    private final LockOptions defaultOptions;
    private final LockSpace plain;
    private final @Nullable LockKinds kinds;
    private final ReentrantLock kindsLock = new ReentrantLock();
    private final Map<String, LockSpace> kindSpaces = new ConcurrentHashMap<>();
    /** Read-write and semaphore storages by what they store, made on first use; guarded by kindsLock. */
    private final Map<String, Object> kindStorages = new HashMap<>();

    /**
     * @throws IllegalArgumentException if the backend implements neither or both of {@code PollingAcquire} and
     *     {@code QueueingAcquire}, or refuses the default options
     */
    KindSpaces(EngineContext engine, LockOptions defaultOptions) {
        this.engine = engine;
        this.defaultOptions = defaultOptions;
        LockBackend backend = engine.backend();
        this.kinds = backend instanceof LockKinds capable ? capable : null;
        this.plain = new LockSpace(engine, "lock", backend, false, 1);
        backend.checkOptions(defaultOptions);
    }

    LockSpace plain() {
        return plain;
    }

    LockSpace fair() {
        return kindSpace("fair", "fair lock", LockKinds::fairLocks, false, 1);
    }

    LockSpace readers(ReadWriteStorage storage) {
        return kindSpace("read", "read lock", k -> storage.readers(), true, Integer.MAX_VALUE);
    }

    LockSpace writers(ReadWriteStorage storage) {
        return kindSpace("write", "write lock", k -> storage.writers(), false, 1);
    }

    ReadWriteStorage readWriteStorage() {
        return storage("read-write locks", LockKinds::readWriteLocks);
    }

    SemaphoreStorage semaphoreStorage() {
        return storage("semaphores", LockKinds::semaphores);
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
                permitsBackend.checkOptions(defaultOptions);
                space = new LockSpace(engine, "semaphore", permitsBackend, true, permits, unused -> dropIfUnused(key, unused));
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

    /** Returns how many semaphore spaces (one per number of permits in use) this client keeps. */
    int semaphoreSpaceCount() {
        return (int) kindSpaces.keySet().stream().filter(key -> key.startsWith("semaphore/")).count();
    }

    /** Returns the spaces in use: the plain one and every kind made so far. */
    List<LockSpace> all() {
        List<LockSpace> all = new ArrayList<>(1 + kindSpaces.size());
        all.add(plain);
        all.addAll(kindSpaces.values());
        return all;
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
                kindBackend.checkOptions(defaultOptions);
                space = new LockSpace(engine, kind, kindBackend, shared, localPermits);
                kindSpaces.put(key, space);
            }
            return space;
        } finally {
            kindsLock.unlock();
        }
    }

    private UnsupportedOperationException unsupported(String what) {
        LockBackend backend = engine.backend();
        return new UnsupportedOperationException("the lock backend " + backend.describe() + " has no " + what
                + " (the engine over " + backend.getClass().getSimpleName() + ")");
    }
}
