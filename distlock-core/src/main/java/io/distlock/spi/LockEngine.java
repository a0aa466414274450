package io.distlock.spi;

import io.distlock.LockClient;
import java.util.Iterator;
import java.util.ServiceLoader;

/** Entry point for backends: wraps a {@link LockBackend} in the shared engine. */
public final class LockEngine {
    private LockEngine() {}

    /**
     * Returns a {@link LockClient} that runs the engine (reentrancy, waiting, watchdog, loss
     * detection) over {@code backend}. The client owns the backend and closes it on close.
     *
     * @throws IllegalArgumentException if an argument is null, if the backend implements neither or both of
     *     {@code PollingAcquire} and {@code QueueingAcquire}, or refuses the default options
     * @throws IllegalStateException if distlock-core's engine is missing from the class path (a repackaged jar that
     *     dropped {@code META-INF/services})
     */
    public static LockClient newClient(LockBackend backend, EngineSettings settings) {
        if (backend == null) {
            throw new IllegalArgumentException("backend must not be null");
        }
        if (settings == null) {
            throw new IllegalArgumentException("settings must not be null");
        }
        return Engine.FACTORY.newClient(backend, settings);
    }

    /** The engine, looked up once, on first use. */
    private static final class Engine {
        static final EngineFactory FACTORY = find();

        private static EngineFactory find() {
            Iterator<EngineFactory> found = ServiceLoader.load(EngineFactory.class, LockEngine.class.getClassLoader()).iterator();
            if (!found.hasNext()) {
                throw new IllegalStateException("distlock-core's engine was not found: " + EngineFactory.class.getName()
                        + " has no provider (a repackaged jar that dropped META-INF/services/" + EngineFactory.class.getName() + "?)");
            }
            return found.next();
        }
    }
}
