package io.distlock.spi;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Capability: renews many leases in one backend round trip. The watchdog uses it, when a backend
 * has it, to keep renewal traffic far below one command per lock per interval.
 */
public interface BatchRenewal {

    /** Returns the largest number of requests one {@link #renewAll} call takes. */
    int maxBatchSize();

    /**
     * Renews every lease in {@code requests}, each only if still held by its owner.
     *
     * @return for each request, in order, true if renewed and false if no longer held by its owner
     */
    CompletableFuture<List<Boolean>> renewAll(List<RenewalRequest> requests);

    /** One lease to renew. */
    record RenewalRequest(String name, String ownerId, Duration leaseTime) {}
}
