package io.distlock.internal;

/**
 * A backend's grant, before the engine makes it an {@link Acquisition}.
 *
 * @param ownerId the owner id the lock is held under
 * @param fencingToken the grant's token
 * @param sentNanos when the request that the grant answers was sent: the lease runs from here
 * @param sessionEpoch the backend session's epoch when that request was sent (see {@link SessionState})
 * @param leaseNanos the lease the grant has from {@code sentNanos}: the lease asked for, or less for a
 *     grant the backend made on a queued waiter's behalf (the engine then renews it at once)
 */
record Grant(String ownerId, long fencingToken, long sentNanos, long sessionEpoch, long leaseNanos) {}
