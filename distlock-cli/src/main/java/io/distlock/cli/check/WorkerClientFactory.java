package io.distlock.cli.check;

import io.distlock.LockClient;
import io.distlock.LockListener;
import io.distlock.LockOptions;

/**
 * Builds the lock client of a check worker, in the worker's JVM. Each {@link Deployment} has one and
 * names it, with a target, in the worker's arguments ({@link WorkerClient}); implementations need a
 * no-argument constructor.
 */
interface WorkerClientFactory {

    /**
     * Returns a client for the deployment's servers at {@code target} (the factory's own format) that tells
     * {@code listener} about its leases (the worker records each lease's deadline from it).
     */
    LockClient create(String target, LockOptions options, LockListener listener);
}
