package io.distlock.spi;

import java.util.Map;

/**
 * Capability: a backend (or one of its kind storages) that keeps per-name state in the client (subscriptions to
 * release channels, watches, queue tickets) reports how much, so that tests can check it all goes once nothing is
 * held or waited for ({@link EngineState#backend()}). Counts may stay above zero for a bounded time after the last
 * use (a subscription lingers); they must reach zero.
 */
public interface StateCounts {

    /** Returns a count per kind of state kept, e.g. {@code "release channels" -> 0}. */
    Map<String, Integer> stateCounts();

    /**
     * Drops now what is kept only for a while after its last use (a subscription that lingers so that the next waiter
     * need not subscribe again), as the backend's timers would later. Called by tests before they read
     * {@link #stateCounts()}; what remains then is kept for good.
     */
    default void endLingers() {}
}
