package io.distlock.spi;

import java.util.concurrent.CompletableFuture;

/**
 * The storage of semaphores with leased permits (see {@link LockKinds}). Each permit is held under an owner
 * id of its own with a lease, renewed and released like a lock; a permit whose lease ran out on the server
 * is free again.
 */
public interface SemaphoreStorage {

    /**
     * Returns the storage of semaphores with {@code permits} permits: acquiring a name grants a permit while
     * fewer than {@code permits} are held. If the semaphore is in use with another number of permits, the
     * acquire fails with {@link RefusedUse#permits} (the same words on every backend).
     */
    LockBackend withPermits(int permits);

    /** Returns how many of the {@code permits} permits of {@code name} are free now (expired leases count as free). */
    CompletableFuture<Integer> availablePermits(String name, int permits);
}
