package io.distlock.internal;

/**
 * A backend's grant, before the engine makes it an {@link Acquisition}.
 *
 * @param ownerId the owner id the lock is held under
 * @param fencingToken the grant's token
 * @param sentNanos when the request that the grant answers was sent: the lease runs from here
 * @param sessionEpoch the backend session's epoch when that request was sent (see {@link SessionState})
 */
record Grant(String ownerId, long fencingToken, long sentNanos, long sessionEpoch) {}
