package io.distlock.internal;

import io.distlock.LockClient;
import io.distlock.spi.EngineFactory;
import io.distlock.spi.EngineState;
import io.distlock.spi.EngineSettings;
import io.distlock.spi.LockBackend;
import java.util.Optional;

/**
 * The engine, as {@link io.distlock.spi.LockEngine} finds it ({@code META-INF/services} and the module's
 * {@code provides}): the one public class of this package, so that the engine's own types stay package-private.
 */
public final class DefaultEngineFactory implements EngineFactory {

    /** Called by {@link java.util.ServiceLoader}. */
    public DefaultEngineFactory() {}

    @Override
    public LockClient newClient(LockBackend backend, EngineSettings settings) {
        return new EngineLockClient(backend, settings);
    }

    @Override
    public Optional<EngineState> state(LockClient client, boolean endLingers) {
        return client instanceof EngineLockClient engine ? Optional.of(engine.state(endLingers)) : Optional.empty();
    }
}
