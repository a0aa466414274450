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
 * @param lastToken the last token of the range the server grant reserved ({@link io.distlock.spi.TokenRanges}):
 *     {@code fencingToken} if it reserved one token
 * @param confirmedNanos when the server's last word on the lease arrived: the answer that granted it (the request's send
 *     time where the granter does not note the answer's), or for a lease handed on, its holder's last confirmed renewal
 * @param handedOn the grant was a lease handed on by another holder of this client ({@link CohortHandoff}), not a server grant
 */
record Grant(String ownerId, long fencingToken, long sentNanos, long sessionEpoch, long leaseNanos, long lastToken, long confirmedNanos,
        boolean handedOn) {

    /** A server grant of one token. */
    Grant(String ownerId, long fencingToken, long sentNanos, long sessionEpoch, long leaseNanos) {
        this(ownerId, fencingToken, sentNanos, sessionEpoch, leaseNanos, fencingToken, sentNanos, false);
    }
}
