package io.distlock.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * How a lock client reaches etcd: the endpoints, the credentials and the operation timeout. One place builds the jetcd
 * client from them, so that the doctor connects exactly as {@link EtcdLockClient.Builder#build()} does.
 *
 * @param endpoints the client URLs, {@code http://host:port}
 * @param user the user to authenticate as, or null for none
 * @param password the user's password (empty without a user)
 * @param operationTimeout how long one operation may take, retries included
 */
record EtcdConnection(List<URI> endpoints, @Nullable String user, String password, Duration operationTimeout) {
    EtcdConnection {
        endpoints = List.copyOf(endpoints);
    }

    /** Returns the endpoints as one comma-separated string, for messages. */
    String where() {
        return String.join(",", endpoints.stream().map(URI::toString).toList());
    }

    /** Returns the same connection without credentials. */
    EtcdConnection anonymous() {
        return new EtcdConnection(endpoints, null, "", operationTimeout);
    }

    /** Returns a new jetcd client (lazy: it connects on its first call); the caller closes it. */
    Client connect() {
        io.etcd.jetcd.ClientBuilder jetcd = Client.builder()
                .endpoints(endpoints.toArray(URI[]::new))
                .connectTimeout(operationTimeout)
                .retryChronoUnit(ChronoUnit.MILLIS).retryDelay(50).retryMaxDelay(500)
                // transient errors (a leader change) are retried until the operation timeout, not just once
                .retryMaxAttempts(1000).retryMaxDuration(operationTimeout)
                .waitForReady(false);
        if (user != null) {
            jetcd.user(ByteSequence.from(user, StandardCharsets.UTF_8)).password(ByteSequence.from(password, StandardCharsets.UTF_8));
        }
        return jetcd.build();
    }
}
