package io.distlock.redis;

import io.distlock.spi.TargetParameters;
import java.util.Locale;
import java.util.Set;

/**
 * A registry target of the Redis backend, read once for the client, the doctor and namespace removal alike.
 *
 * @param uri the URI as Lettuce takes it: a cluster's {@code redis-cluster://} seed becomes {@code redis://}
 * @param cluster whether the target names a cluster ({@code redis-cluster://} or {@code rediss-cluster://})
 * @param parameters the client's own parameters ({@code minReplicas}, {@code replicaAckTimeout}), taken out of the URI
 */
record RedisTarget(String uri, boolean cluster, TargetParameters parameters) {
    private static final String CLUSTER = "-cluster://";

    /**
     * Reads a target.
     *
     * @throws IllegalArgumentException if a parameter is malformed or unknown
     */
    static RedisTarget parse(String target) {
        TargetParameters parameters = TargetParameters.take(target, Set.of("minReplicas", "replicaAckTimeout"));
        String uri = parameters.target();
        String lower = uri.toLowerCase(Locale.ROOT);
        if (lower.startsWith("redis" + CLUSTER) || lower.startsWith("rediss" + CLUSTER)) {
            int scheme = lower.indexOf(CLUSTER);
            return new RedisTarget(uri.substring(0, scheme) + "://" + uri.substring(scheme + CLUSTER.length()), true, parameters);
        }
        return new RedisTarget(uri, false, parameters);
    }
}
