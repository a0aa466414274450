package io.distlock;

import java.time.Duration;
import java.util.Optional;

/**
 * A named counting semaphore shared by every client of the same backend, whose permits are leases: each
 * acquired permit is a {@link Lease} that the watchdog renews while it is held, and a permit whose
 * holder crashed or stopped renewing comes back when its lease ends (on the server's clock). Permits
 * cannot leak.
 *
 * <pre>{@code
 * DistributedSemaphore exports = locks.getSemaphore("exports", 4);   // at most 4 exports at once, cluster-wide
 * try (Lease permit = exports.acquire(Duration.ofSeconds(30))) {
 *     runExport(permit.fencingToken());
 * }
 * }</pre>
 *
 * <p>Each permit has its own fencing token, larger than every token granted before it. Permits belong
 * to no thread: any thread may close a lease, and a thread may hold several. Waiters are served in
 * arrival order across clients. Every client must use the same number of permits for one name while the
 * semaphore is in use; a client that asks with another number gets an {@link IllegalStateException}
 * naming both. The semaphore of a name is separate from the locks of that name.
 */
public interface DistributedSemaphore {

    /** Returns the semaphore's name. */
    String name();

    /** Returns how many permits the semaphore has. */
    int permits();

    /** Returns the options permits are acquired with. */
    LockOptions options();

    /**
     * Returns how many permits are free now, asked of the backend; permits whose lease ran out count as
     * free. Exact at the moment the backend answered.
     *
     * @throws BackendUnavailableException if the backend does not answer within the operation timeout
     */
    int availablePermits();

    /**
     * Acquires a permit, waiting as long as it takes.
     *
     * @throws InterruptedException if interrupted while waiting; no permit is held then
     * @throws BackendUnavailableException if the backend does not answer within the operation timeout
     * @throws IllegalStateException if the client is closed, or the semaphore is in use with another number of permits
     *     (a {@link io.distlock.spi.RefusedUse}, naming both numbers)
     */
    Lease acquire() throws InterruptedException;

    /**
     * Acquires a permit, waiting at most {@code waitTime}.
     *
     * @throws LockAcquireTimeoutException if no permit was acquired within {@code waitTime}
     * @throws IllegalArgumentException if {@code waitTime} is null or negative
     * @throws InterruptedException if interrupted while waiting; no permit is held then
     */
    Lease acquire(Duration waitTime) throws InterruptedException;

    /**
     * Acquires a permit if one becomes free within {@code waitTime}.
     *
     * @return the permit's lease, or empty if the wait ran out
     * @throws IllegalArgumentException if {@code waitTime} is null or negative
     * @throws InterruptedException if interrupted while waiting; no permit is held then
     */
    Optional<Lease> tryAcquire(Duration waitTime) throws InterruptedException;
}
