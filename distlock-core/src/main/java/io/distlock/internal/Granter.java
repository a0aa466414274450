package io.distlock.internal;

import io.distlock.LockOptions;
import org.jspecify.annotations.Nullable;

/**
 * Gets a grant from the backend for one acquisition, waiting as its capability says: by asking again
 * when told the lock may be free ({@link PollingGranter}), or by queueing for a turn ({@link QueueGranter}).
 * Runs after the thread has passed the slot's local gate, so only one thread per client and name is here.
 */
interface Granter {

    /**
     * Returns a grant, or null if {@code waitNanos} ran out first ({@link LockAcquirer#FOREVER}: no limit).
     * If the caller gives up (interrupt, timeout, error) after a request was sent, the granter makes
     * sure that a grant arriving later is released, and that nothing of the caller's stays queued.
     */
    @Nullable Grant await(LockSlot slot, LockOptions options, long waitNanos) throws InterruptedException;
}
