package io.distlock.spi;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

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
     * @return for each request, in order, what the backend found ({@link OwnerCheck#OWNER}: renewed), or
     *     null where that request could not be answered (one shard of a cluster failing): the watchdog
     *     retries those
     */
    CompletableFuture<List<@Nullable OwnerCheck>> renewAll(List<RenewalRequest> requests);

    /** Names a {@link #renewAll} call in errors and logs: {@code renewal} for one request, {@code batched renewal (n locks)}. */
    static String operation(List<RenewalRequest> requests) {
        return requests.size() > 1 ? "batched renewal (" + requests.size() + " locks)" : "renewal";
    }

    /** One lease to renew. */
    record RenewalRequest(String name, String ownerId, Duration leaseTime) {}
}
