package io.distlock.spi;

import io.distlock.LockClient;
import io.distlock.internal.EngineLockClient;

/** Entry point for backends: wraps a {@link LockBackend} in the shared engine. */
public final class LockEngine {
    private LockEngine() {}

    /**
     * Returns a {@link LockClient} that runs the engine (reentrancy, waiting, watchdog, loss
     * detection) over {@code backend}. The client owns the backend and closes it on close.
     */
    public static LockClient newClient(LockBackend backend, EngineSettings settings) {
        if (backend == null) {
            throw new IllegalArgumentException("backend must not be null");
        }
        if (settings == null) {
            throw new IllegalArgumentException("settings must not be null");
        }
        return new EngineLockClient(backend, settings);
    }
}
