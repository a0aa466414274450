package io.distlock.spi;

import io.distlock.LockClient;
import java.util.Optional;

/**
 * What builds the engine's {@link LockClient} over a backend. distlock-core provides the one implementation, found
 * with {@link java.util.ServiceLoader} by {@link LockEngine#newClient}, so that this package does not depend on the
 * engine's and the engine's types stay package-private. Backends call {@link LockEngine#newClient}; they do not
 * implement this.
 */
public interface EngineFactory {

    /**
     * Returns a client that runs the engine over {@code backend} (both arguments checked by the caller).
     *
     * @throws IllegalArgumentException if the backend implements neither or both of {@code PollingAcquire} and
     *     {@code QueueingAcquire}, or refuses the default options
     */
    LockClient newClient(LockBackend backend, EngineSettings settings);

    /** Returns what {@code client} keeps per name, if it is a client of this engine (unwrapped from a {@link ForwardingLockClient}). */
    Optional<EngineState> state(LockClient client, boolean endLingers);
}
