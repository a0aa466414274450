package io.distlock.spi;

import java.util.Map;

/**
 * What one engine client keeps per lock name in memory, for tests that check nothing leaks: once every lease of a
 * client is closed and no call waits, {@link #isIdle()} holds (the engine drops a name's state when its last user
 * leaves, a semaphore's per-permit-count state when no permit of it is held, and the backend drops what it reports
 * through {@link StateCounts}). See {@link LockEngine#state}.
 *
 * @param closed whether the client is closed (its state is then garbage, not checked)
 * @param heldLeases leases held now
 * @param namesInUse names with per-name state (held, waited for or being acquired), across every kind
 * @param semaphoreSpaces semaphore permit counts with state (one per number of permits in use)
 * @param sessionWaiters waiters registered to be woken by a session loss
 * @param backend what the backend reports through {@link StateCounts} (empty if it keeps no per-name state)
 */
public record EngineState(boolean closed, int heldLeases, int namesInUse, int semaphoreSpaces, int sessionWaiters, Map<String, Integer> backend) {

    /** Copies the backend's counts. */
    public EngineState {
        backend = Map.copyOf(backend);
    }

    /** Returns whether the client keeps no per-name state: nothing held, nothing waited for, nothing left behind. */
    public boolean isIdle() {
        return heldLeases == 0 && namesInUse == 0 && semaphoreSpaces == 0 && sessionWaiters == 0
                && backend.values().stream().allMatch(count -> count == 0);
    }
}
