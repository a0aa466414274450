package io.distlock.redis;

import io.distlock.BackendUnavailableException;
import io.distlock.DoctorCheck;
import io.distlock.Finding;
import io.distlock.Finding.Severity;
import io.distlock.LockOptions;
import io.distlock.OpenOptions;
import io.distlock.spi.RoundTripProbe;
import io.distlock.spi.TargetUri;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The Redis doctor: reads a standalone server's configuration (CONFIG GET, INFO) and judges what bears on lock safety:
 * eviction, persistence, replication against the client's {@code minReplicas}. Read only. A fact the server will not
 * give (CONFIG refused by an ACL or a managed service) is a finding of severity {@link Severity#UNKNOWN}, never a guess.
 *
 * <p>Sentinel and Cluster targets: {@link RedisDeploymentDoctor} examines the topology, then these checks on the master
 * (every master of a cluster).
 */
final class RedisDoctor {
    private static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);

    static final DoctorCheck VERSION = new DoctorCheck("redis.version", "redis_version (INFO server), for the record", "", "", "always", "");
    static final DoctorCheck EVICTION = new DoctorCheck("redis.eviction", "maxmemory-policy and maxmemory (CONFIG GET)",
            "a maxmemory limit with an evicting maxmemory-policy (allkeys-*, and volatile-* too: lock keys carry an expiry, so they are "
                    + "exactly what those policies evict)", "",
            "noeviction (when full, Redis refuses writes: an acquire fails, a held lock stays held), or no maxmemory",
            "maxmemory-policy noeviction, or a Redis of its own for locks");
    static final DoctorCheck PERSISTENCE = new DoctorCheck("redis.persistence", "appendonly, appendfsync and save (CONFIG GET)", "",
            "no persistence (a restart empties Redis and frees every held lock at once; holders learn it at their next renewal); "
                    + "snapshots only (a restart brings back locks minutes old); appendfsync no",
            "appendonly yes with appendfsync everysec or always", "appendonly yes, appendfsync everysec");
    static final DoctorCheck REPLICATION = new DoctorCheck("redis.replication", "role and connected replicas (INFO replication) against "
            + "the target's minReplicas", "", "replicas with asynchronous replication and no minReplicas in the target (a failover to a "
                    + "replica that missed the last grants frees them); the target is a replica (acquires fail: READONLY)",
            "no replicas, or ?minReplicas=1", "?minReplicas=1 in the target; the master, or redis-sentinel://");
    static final DoctorCheck LATENCY = RoundTripProbe.check("redis", "PING");
    /** The catalogue, in the order findings come. */
    static final List<DoctorCheck> CHECKS = List.of(RedisDeploymentDoctor.SENTINEL, RedisDeploymentDoctor.CLUSTER, VERSION, EVICTION, PERSISTENCE,
            REPLICATION, RedisPermissions.CHECK, LATENCY);

    private RedisDoctor() {}

    static List<Finding> diagnose(String target, OpenOptions options) {
        RedisTarget redis = RedisTarget.parse(target);
        int minReplicas = redis.parameters().integer("minReplicas").orElse(0);
        Duration timeout = options.operationTimeout().orElse(DEFAULT_TIMEOUT);
        Duration lease = options.lockOptions().map(LockOptions::leaseTime).orElse(LockOptions.DEFAULT_LEASE_TIME);
        RedisURI redisUri = RedisURI.create(redis.uri());
        redisUri.setTimeout(timeout);
        Function<StatefulRedisConnection<String, String>, List<Finding>> server = connection -> {
            List<Finding> findings = examine(connection.sync(), minReplicas);
            findings.add(RedisPermissions.check(connection.sync(), options.namespace().orElse(RedisLockClient.DEFAULT_KEY_PREFIX), minReplicas));
            findings.add(RoundTripProbe.judge(LATENCY, connection.sync()::ping, lease));
            return findings;
        };
        try {
            if (redis.cluster()) {
                return RedisDeploymentDoctor.cluster(redisUri, server);
            }
            if (!redisUri.getSentinels().isEmpty()) {
                return RedisDeploymentDoctor.sentinel(redisUri, lease, server);
            }
            RedisClient client = RedisClient.create(redisUri);
            try (StatefulRedisConnection<String, String> connection = client.connect()) {
                connection.setTimeout(timeout);
                return server.apply(connection);
            } finally {
                client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
            }
        } catch (RedisException e) {
            throw new BackendUnavailableException("the Redis doctor could not read " + TargetUri.mask(target) + ": " + e.getMessage(), e);
        }
    }

    private static List<Finding> examine(RedisCommands<String, String> redis, int minReplicas) {
        List<Finding> findings = new ArrayList<>();
        String server = redis.info("server");
        findings.add(VERSION.ok("redis_version " + field(server, "redis_version"), "the server's version, for the record"));
        Map<String, String> config;
        try {
            config = new java.util.HashMap<>();
            for (String name : List.of("maxmemory-policy", "maxmemory", "appendonly", "appendfsync", "save")) {
                config.putAll(redis.configGet(name));
            }
        } catch (RedisException refused) {
            String why = "CONFIG GET was refused (" + refused.getMessage() + "): ";
            String fix = "ask the provider for the setting, or let the doctor's user run CONFIG GET (ACL +config|get)";
            findings.add(EVICTION.finding(Severity.UNKNOWN, why.trim(), why + "whether Redis may delete lock keys under memory "
                    + "pressure cannot be read", fix));
            findings.add(PERSISTENCE.finding(Severity.UNKNOWN, why.trim(), why + "whether a restart keeps the locks cannot be read",
                    fix));
            findings.add(replication(redis, minReplicas));
            return findings;
        }
        findings.add(eviction(config));
        findings.add(persistence(config));
        findings.add(replication(redis, minReplicas));
        return findings;
    }

    static Finding eviction(Map<String, String> config) {
        String policy = config.getOrDefault("maxmemory-policy", "?");
        String maxmemory = config.getOrDefault("maxmemory", "?");
        String observed = "maxmemory-policy " + policy + ", maxmemory " + maxmemory;
        if (policy.equals("noeviction")) {
            return EVICTION.finding(Severity.OK, observed, "when full, Redis refuses writes instead of deleting keys: a held lock "
                    + "stays held (an acquire fails instead)", "");
        }
        if (maxmemory.equals("0")) {
            return EVICTION.finding(Severity.OK, observed, "no memory limit: Redis evicts nothing (the machine's memory is the "
                    + "limit; setting one later would start evictions under this policy)", "maxmemory-policy noeviction, before any maxmemory is set");
        }
        return EVICTION.finding(Severity.UNSAFE, observed, "under memory pressure Redis deletes keys by this policy, lock keys "
                + "among them (they carry an expiry): a held lock becomes free and a second client acquires it",
                "maxmemory-policy noeviction (redis.conf, or CONFIG SET maxmemory-policy noeviction), or a Redis of its own for locks");
    }

    static Finding persistence(Map<String, String> config) {
        String appendonly = config.getOrDefault("appendonly", "?");
        String fsync = config.getOrDefault("appendfsync", "?");
        String save = config.getOrDefault("save", "");
        String observed = "appendonly " + appendonly + ", appendfsync " + fsync + ", save '" + save + "'";
        String fix = "appendonly yes with appendfsync everysec (or always)";
        if (appendonly.equals("yes") && !fsync.equals("no")) {
            return PERSISTENCE.finding(Severity.OK, observed, "a restart brings the locks back from the append-only file"
                    + (fsync.equals("always") ? "" : " (a crash of the machine can lose the last second's grants)"), "");
        }
        if (appendonly.equals("yes")) {
            return PERSISTENCE.finding(Severity.RISKY, observed, "appendfsync no: the system flushes the file when it likes, "
                    + "often 30 s later: a crash frees the locks granted in that time", fix);
        }
        if (!save.isBlank()) {
            return PERSISTENCE.finding(Severity.RISKY, observed, "snapshots only: a restart brings back the locks of the last "
                    + "snapshot, possibly minutes old; locks granted since are free while their holders work", fix);
        }
        return PERSISTENCE.finding(Severity.RISKY, observed, "no persistence: a restart empties Redis, every held lock is free "
                + "at once, and a holder learns it only at its next renewal (SERVER_LOST_LOCK); fencing tokens keep increasing", fix);
    }

    private static Finding replication(RedisCommands<String, String> redis, int minReplicas) {
        String info = redis.info("replication");
        String role = field(info, "role");
        String replicas = field(info, "connected_slaves");
        String observed = "role " + role + ", connected replicas " + replicas + ", client minReplicas " + minReplicas;
        if (role.equals("slave")) {
            return REPLICATION.finding(Severity.RISKY, observed, "this server is a replica: it refuses the lock scripts' writes "
                    + "(READONLY), so acquires fail", "point the target at the master, or use redis-sentinel:// to follow it");
        }
        if (!replicas.equals("0") && minReplicas == 0) {
            return REPLICATION.finding(Severity.RISKY, observed, "replication is asynchronous: a failover to a replica that missed "
                    + "the last grants frees those locks while their holders work", "add ?minReplicas=1 to the target (each grant waits for a "
                    + "replica's acknowledgement; see docs/guarantees.md for what it does and does not promise)");
        }
        return REPLICATION.finding(Severity.OK, observed, replicas.equals("0") ? "no replicas: no failover can lose a grant "
                + "(a restart still can, see redis.persistence)" : "each grant waits for " + minReplicas + " replica(s) to acknowledge it", "");
    }

    static String field(@Nullable String info, String name) {
        if (info != null) {
            for (String line : info.split("\r?\n")) {
                if (line.startsWith(name + ":")) {
                    return line.substring(name.length() + 1).trim();
                }
            }
        }
        return "?";
    }
}
