package io.distlock.spi;

import io.distlock.LockListener;
import io.distlock.LockOptions;
import java.time.Duration;
import java.util.List;

/**
 * Client-wide settings of the engine, chosen by the backend's builder.
 *
 * @param defaultOptions the options of {@code getLock(name)}
 * @param fallbackPoll the longest a waiter sleeps without a release notification before asking the
 *     backend again; bounds the delay a lost notification can cause
 * @param threadNamePrefix prefix of the engine's thread names, e.g. {@code distlock-redis}
 * @param listeners told what happens to the client's leases, in order
 */
public record EngineSettings(LockOptions defaultOptions, Duration fallbackPoll, String threadNamePrefix, List<LockListener> listeners) {

    /** The default fallback poll: 1 second. */
    public static final Duration DEFAULT_FALLBACK_POLL = Duration.ofSeconds(1);

    /** Settings without listeners. */
    public EngineSettings(LockOptions defaultOptions, Duration fallbackPoll, String threadNamePrefix) {
        this(defaultOptions, fallbackPoll, threadNamePrefix, List.of());
    }

    /** Validates the settings. */
    public EngineSettings {
        if (defaultOptions == null) {
            throw new IllegalArgumentException("defaultOptions must not be null");
        }
        if (fallbackPoll == null || fallbackPoll.isNegative() || fallbackPoll.isZero()) {
            throw new IllegalArgumentException("fallbackPoll must be positive, was " + fallbackPoll);
        }
        if (threadNamePrefix == null || threadNamePrefix.isBlank()) {
            throw new IllegalArgumentException("threadNamePrefix must not be blank");
        }
        if (listeners == null || listeners.stream().anyMatch(java.util.Objects::isNull)) {
            throw new IllegalArgumentException("listeners must not be null or contain null");
        }
        listeners = List.copyOf(listeners);
    }
}
