package io.distlock.spi;

import io.distlock.LockClient;
import java.util.Iterator;
import java.util.Optional;
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

    /**
     * Returns what {@code client} keeps in memory per lock name (for tests that check nothing leaks); empty if it is not
     * a client of the engine. With {@code endLingers}, what is kept only for a while after its last use (subscriptions to
     * release notifications linger about two seconds) is dropped first, as its timer would do later; what remains is
     * kept for good.
     */
    public static Optional<EngineState> state(LockClient client, boolean endLingers) {
        LockClient engine = client instanceof ForwardingLockClient forwarding ? forwarding.engine() : client;
        return Engine.FACTORY.state(engine, endLingers);
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
