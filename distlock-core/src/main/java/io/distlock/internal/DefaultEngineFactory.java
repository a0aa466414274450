package io.distlock.internal;

import io.distlock.LockClient;
import io.distlock.spi.EngineFactory;
import io.distlock.spi.EngineSettings;
import io.distlock.spi.LockBackend;

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
}
