package io.distlock.testkit;

import java.time.Duration;

/**
 * The client settings a contract test may vary: how long one backend operation may take, and how long
 * a waiter sleeps without a notification before asking the backend again. Every backend's builder
 * has both ({@link io.distlock.spi.ClientBuilder}).
 *
 * @param operationTimeout the client's operation timeout
 * @param fallbackPoll the client's fallback poll
 */
public record ClientSettings(Duration operationTimeout, Duration fallbackPoll) {
    /** The contract tests' defaults: one second each, so that outage tests finish quickly. */
    public static final ClientSettings DEFAULTS = new ClientSettings(Duration.ofSeconds(1), Duration.ofSeconds(1));

    /** Checks that both durations are positive. */
    public ClientSettings {
        positive(operationTimeout, "operationTimeout");
        positive(fallbackPoll, "fallbackPoll");
    }

    /** Returns these settings with another operation timeout. */
    public ClientSettings withOperationTimeout(Duration timeout) {
        return new ClientSettings(timeout, fallbackPoll);
    }

    /** Returns these settings with another fallback poll. */
    public ClientSettings withFallbackPoll(Duration poll) {
        return new ClientSettings(operationTimeout, poll);
    }

    private static void positive(Duration value, String name) {
        if (value == null || value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(name + " must be positive, was " + value);
        }
    }
}
