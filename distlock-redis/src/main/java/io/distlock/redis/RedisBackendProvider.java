package io.distlock.redis;

import io.distlock.DoctorCheck;
import io.distlock.Finding;
import io.distlock.LockClient;
import io.distlock.LockKind;
import io.distlock.OpenOptions;
import io.distlock.spi.LockBackendProvider;
import java.util.EnumSet;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The Redis backend in the registry: standalone ({@code redis://}, {@code rediss://} for TLS), Sentinel
 * ({@code redis-sentinel://}) and Cluster ({@code redis-cluster://}, a seed node). The namespace is the key prefix.
 */
public final class RedisBackendProvider implements LockBackendProvider {
    /** For {@link java.util.ServiceLoader}. */
    public RedisBackendProvider() {}

    @Override
    public String id() {
        return "redis";
    }

    @Override
    public String description() {
        return "Redis standalone, Sentinel or Cluster (Lettuce); locks under a key prefix";
    }

    @Override
    public List<String> schemes() {
        return List.of("redis", "rediss", "redis-sentinel", "rediss-sentinel", "redis-cluster", "rediss-cluster");
    }

    @Override
    public List<String> exampleTargets() {
        return List.of("redis://[user:password@]host:6379[/db]", "rediss://host:6380",
                "redis-sentinel://[password@]host:26379[,host:26379]#master", "redis-cluster://host:7000",
                "redis-sentinel://host:26379?minReplicas=1&replicaAckTimeout=400ms#master");
    }

    @Override
    public Set<LockKind> kinds() {
        return EnumSet.allOf(LockKind.class);
    }

    @Override
    public boolean hasInspector() {
        return true;
    }

    @Override
    public Optional<List<Finding>> diagnose(String target, OpenOptions options) {
        return Optional.of(RedisDoctor.diagnose(target, options));
    }

    @Override
    public List<DoctorCheck> doctorChecks() {
        return RedisDoctor.CHECKS;
    }

    @Override
    public long removeNamespace(String target, OpenOptions options) {
        String prefix = options.namespace().orElseThrow(() -> new IllegalArgumentException("removeNamespace needs a namespace: the "
                + "default one (distlock:) is the application's, never removed"));
        RedisTarget redis = RedisTarget.parse(target);
        Duration timeout = options.operationTimeout().orElse(Duration.ofSeconds(5));
        return RedisNamespaces.remove(redis.uri(), redis.cluster(), prefix, timeout);
    }

    @Override
    public LockClient open(String target, OpenOptions options) {
        RedisTarget redis = RedisTarget.parse(target);
        RedisLockClient.Builder builder = RedisLockClient.builder().uri(redis.uri()).cluster(redis.cluster());
        redis.parameters().integer("minReplicas").ifPresent(builder::minReplicas);
        redis.parameters().duration("replicaAckTimeout").ifPresent(builder::replicaAckTimeout);
        options.namespace().ifPresent(builder::keyPrefix);
        return builder.apply(options).build();
    }
}
