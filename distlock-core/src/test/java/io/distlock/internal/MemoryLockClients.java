package io.distlock.internal;

import io.distlock.LockClient;
import io.distlock.LockOptions;
import io.distlock.spi.EngineSettings;
import io.distlock.spi.LockBackend;
import java.time.Duration;

/** Builds engine clients over a {@link MemoryStore}, on the system clock or on a {@link ManualClock}. */
public final class MemoryLockClients {
    private MemoryLockClients() {}

    /** Returns a client that acquires by asking (like Redis), on the system clock. */
    public static LockClient polling(MemoryStore store, Duration operationTimeout, Duration fallbackPoll) {
        return new EngineLockClient(store.pollingBackend(operationTimeout), settings(LockOptions.defaults(), fallbackPoll));
    }

    /** Returns a client that acquires by queueing (like ZooKeeper), on the system clock. */
    public static LockClient queueing(MemoryStore store, Duration operationTimeout, Duration fallbackPoll) {
        return new EngineLockClient(store.queueBackend(operationTimeout), settings(LockOptions.defaults(), fallbackPoll));
    }

    /** Returns an engine client over {@code backend} with these default options and clock. */
    static EngineLockClient client(LockBackend backend, LockOptions defaults, EngineClock clock) {
        return new EngineLockClient(backend, settings(defaults, Duration.ofSeconds(1)), clock);
    }

    /** As {@link #client(LockBackend, LockOptions, EngineClock)}, with waiters that poll only every {@code fallbackPoll}. */
    static EngineLockClient client(LockBackend backend, LockOptions defaults, EngineClock clock, Duration fallbackPoll) {
        return new EngineLockClient(backend, settings(defaults, fallbackPoll), clock);
    }

    private static EngineSettings settings(LockOptions defaults, Duration fallbackPoll) {
        return new EngineSettings(defaults, fallbackPoll, "distlock-memory");
    }
}
