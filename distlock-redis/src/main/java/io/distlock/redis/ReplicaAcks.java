package io.distlock.redis;

import java.time.Duration;

/**
 * How many replicas must acknowledge each lock write (Redis WAIT), and for how long to wait.
 *
 * @param minReplicas 0 for no waiting
 * @param timeout how long WAIT may block
 */
record ReplicaAcks(int minReplicas, Duration timeout) {
    static final ReplicaAcks NONE = new ReplicaAcks(0, Duration.ofSeconds(1));
    boolean enabled() {
        return minReplicas > 0;
    }
}
