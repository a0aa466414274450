package io.distlock.spi;

import io.distlock.DistributedLock;
import io.distlock.DistributedReadWriteLock;
import io.distlock.DistributedSemaphore;
import io.distlock.LockClient;
import io.distlock.LockOptions;

/**
 * Base of each backend's public client class ({@code RedisLockClient}, {@code ZooKeeperLockClient}):
 * forwards the {@link LockClient} methods to the engine client built by {@link LockEngine#newClient},
 * so that the backend class adds only its factory methods, builder and extras.
 */
public abstract class ForwardingLockClient implements LockClient {
    private final LockClient engine;

    /** Wraps the engine client; the subclass owns it from now on. */
    protected ForwardingLockClient(LockClient engine) {
        if (engine == null) {
            throw new IllegalArgumentException("engine must not be null");
        }
        this.engine = engine;
    }

    /** Returns the engine client this one forwards to. */
    final LockClient engine() {
        return engine;
    }

    @Override
    public final DistributedLock getLock(String name) {
        return engine.getLock(name);
    }

    @Override
    public final DistributedLock getLock(String name, LockOptions options) {
        return engine.getLock(name, options);
    }

    @Override
    public final DistributedLock getFairLock(String name) {
        return engine.getFairLock(name);
    }

    @Override
    public final DistributedLock getFairLock(String name, LockOptions options) {
        return engine.getFairLock(name, options);
    }

    @Override
    public final DistributedReadWriteLock getReadWriteLock(String name) {
        return engine.getReadWriteLock(name);
    }

    @Override
    public final DistributedReadWriteLock getReadWriteLock(String name, LockOptions options) {
        return engine.getReadWriteLock(name, options);
    }

    @Override
    public final DistributedSemaphore getSemaphore(String name, int permits) {
        return engine.getSemaphore(name, permits);
    }

    @Override
    public final DistributedSemaphore getSemaphore(String name, int permits, LockOptions options) {
        return engine.getSemaphore(name, permits, options);
    }

    @Override
    public void close() {
        engine.close();
    }
}
