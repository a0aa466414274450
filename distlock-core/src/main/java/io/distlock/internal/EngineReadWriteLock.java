package io.distlock.internal;

import io.distlock.DistributedLock;
import io.distlock.DistributedReadWriteLock;
import io.distlock.LeaseLostException.Reason;
import io.distlock.LockOptions;
import io.distlock.spi.ReadWriteStorage;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The {@link DistributedReadWriteLock} of every backend with {@link ReadWriteStorage}: a read side and a
 * write side, each an {@link EngineLock} over its own {@link LockSpace}, tied together here.
 */
final class EngineReadWriteLock implements DistributedReadWriteLock {
    /*
     * The storage decides who may hold what; this class only adds the two rules that depend on what the
     * calling thread already holds in this client (checked after re-entry, so a thread that holds both
     * sides re-enters either):
     * - read while holding write: a downgrade, granted at once by ReadWriteStorage.downgrade while the
     *   write hold is still there (DowngradeGranter), so no other writer gets in between;
     * - write while holding read (and not write): refused. Two readers that both waited to upgrade would
     *   wait for each other forever; ReentrantReadWriteLock deadlocks there, we throw instead.
     */
    private final EngineContext engine;
    private final ReadWriteStorage storage;
    private final String name;
    private final EngineLock read;
    private final EngineLock write;

    EngineReadWriteLock(EngineContext engine, ReadWriteStorage storage, LockSpace readers, LockSpace writers, String name,
            LockOptions options) {
        this.engine = engine;
        this.storage = storage;
        this.name = name;
        this.read = new EngineLock(engine, readers, name, options, this);
        this.write = new EngineLock(engine, writers, name, options, this);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public DistributedLock readLock() {
        return read;
    }

    @Override
    public DistributedLock writeLock() {
        return write;
    }

    /**
     * Returns how {@code side} must get a new acquisition for the calling thread: null for the usual way,
     * a downgrade granter for a read by the thread that holds the write side.
     *
     * @throws IllegalStateException for a write by a thread that holds only the read side
     */
    @Nullable Granter granterFor(EngineLock side) {
        if (side == write) {
            if (read.ownedByCurrentThread() != null) {
                throw new IllegalStateException("the calling thread holds the read lock of '" + name + "' and asks for its write lock: "
                        + "upgrading is not supported (two readers upgrading at once would wait for each other forever). "
                        + "Release the read lock first, then acquire the write lock and read again");
            }
            return null;
        }
        Acquisition writing = write.ownedByCurrentThread();
        return writing == null ? null : new DowngradeGranter(engine, storage, writing);
    }

    @Override
    public boolean forceUnlock() {
        engine.checkOpen();
        // the local holders read before the call, as EngineLock.forceUnlock does: one granted meanwhile is not ended
        List<Acquisition> local = new ArrayList<>(write.localHolders());
        local.addAll(read.localHolders());
        int ended = engine.calls().awaitUninterruptibly(storage.forceReleaseAll(name), "forceUnlock", name);
        if (ended > 0) {
            for (Acquisition holder : local) {
                engine.losses().lose(holder, Reason.FORCE_UNLOCKED, "it was force-unlocked through this client", null);
            }
        }
        return ended > 0;
    }

    @Override
    public String toString() {
        return "DistributedReadWriteLock[" + name + ", " + read.options() + "]";
    }
}
