package io.distlock.redis;

import io.distlock.DoctorCheck;
import io.distlock.Finding;
import io.distlock.Finding.Severity;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.sentinel.api.StatefulRedisSentinelConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The Redis doctor's part for Sentinel and Cluster targets: the topology (how many Sentinels watch the master; whether
 * every slot is served and every master has a replica), then the standalone checks on the master, or on every master
 * of a cluster with each check's worst finding kept (a lock lives on one master: the worst one is where it can be lost).
 */
final class RedisDeploymentDoctor {
    static final DoctorCheck SENTINEL = new DoctorCheck("redis.sentinel", "the Sentinels that watch the master (SENTINEL MASTER): "
            + "how many, their quorum, down-after-milliseconds against the lease", "", "fewer than 3 Sentinels (a failover needs a "
            + "majority of them: with 1 or 2 the loss of one stops failovers, and a lone Sentinel cut off from the master fails it over "
            + "by itself); a quorum below a majority; down-after-milliseconds above half the lease (a master that dies is replaced only "
            + "after every held lock's lease has run out: each holder loses its lock, and is told)",
            "3 or more Sentinels on separate machines, quorum a majority, down-after-milliseconds at most half the lease",
            "run 3 (or 5) Sentinels on separate machines; sentinel monitor <master> <host> <port> <majority>; "
                    + "sentinel down-after-milliseconds <master> <at most half the lease>, or a longer lease");
    static final DoctorCheck CLUSTER = new DoctorCheck("redis.cluster", "cluster_state and slot coverage (CLUSTER INFO), replicas per "
            + "master (CLUSTER NODES)", "", "slots not served (cluster_state fail: locks whose names hash there cannot be acquired or "
            + "released); a master without a replica (its restart or loss takes its locks with it)",
            "every one of the 16384 slots served and every master with a replica",
            "CLUSTER ADDSLOTS for the missing slots (redis-cli --cluster fix); a replica per master (CLUSTER REPLICATE)");

    private RedisDeploymentDoctor() {}

    /** Examines a Sentinel target: the Sentinels (down-after-milliseconds against {@code lease}), then the master they name. */
    static List<Finding> sentinel(RedisURI uri, Duration lease, Function<StatefulRedisConnection<String, String>, List<Finding>> master) {
        List<Finding> findings = new ArrayList<>();
        RedisClient client = RedisClient.create(uri);
        try {
            try (StatefulRedisSentinelConnection<String, String> sentinel = client.connectSentinel()) {
                Map<String, String> state = sentinel.sync().master(uri.getSentinelMasterId());
                int sentinels = Integer.parseInt(state.getOrDefault("num-other-sentinels", "0")) + 1;
                int quorum = Integer.parseInt(state.getOrDefault("quorum", "0"));
                String downAfter = state.getOrDefault("down-after-milliseconds", "?");
                String observed = sentinels + " Sentinel(s), quorum " + quorum + ", down-after-milliseconds " + downAfter + " (lease "
                        + lease.toMillis() + " ms), master " + state.get("ip") + ":" + state.get("port") + " with "
                        + state.getOrDefault("num-slaves", "?") + " replica(s)";
                List<String> why = new ArrayList<>();
                if (sentinels < 3) {
                    why.add("a failover needs a majority of the Sentinels: with fewer than 3 the loss of one stops failovers, and one "
                            + "cut off from the master can fail it over by itself while clients still lock on the old master");
                } else if (quorum <= sentinels / 2) {
                    why.add("a quorum below a majority lets a minority of Sentinels, cut off from the master, declare it down and "
                            + "start a failover");
                }
                if (downAfter.matches("\\d+") && Duration.ofMillis(Long.parseLong(downAfter)).compareTo(lease.dividedBy(2)) > 0) {
                    why.add("the Sentinels wait down-after-milliseconds before they even start to replace a dead master, and the "
                            + "election and the clients' switch take more: above half the lease, the renewals of every held lock fail "
                            + "until its lease runs out, so a master's death loses every lock (their holders are told) and none can be "
                            + "taken meanwhile");
                }
                findings.add(why.isEmpty()
                        ? SENTINEL.ok(observed, "a majority of Sentinels must agree before a failover, and they begin one within half "
                                + "a lease, which leaves the rest for the election and the clients' switch to the new master")
                        : SENTINEL.finding(Severity.RISKY, observed, String.join("; ", why), SENTINEL.fix()));
            }
            try (StatefulRedisConnection<String, String> connection = client.connect()) { // the master, through the Sentinels
                connection.setTimeout(uri.getTimeout());
                findings.addAll(master.apply(connection));
            }
            return findings;
        } finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
        }
    }

    private static boolean has(String flags, String flag) {
        return java.util.Arrays.asList(flags.split(",")).contains(flag);
    }

    /** Returns {@code host:port} of a CLUSTER NODES address {@code host:port@cport[,hostname]}. */
    private static String address(String field) {
        int at = field.indexOf('@');
        return at < 0 ? field : field.substring(0, at);
    }

    /** Examines a Cluster target: coverage and replicas, then every master, keeping each check's worst finding. */
    static List<Finding> cluster(RedisURI seed, Function<StatefulRedisConnection<String, String>, List<Finding>> master) {
        RedisClusterClient client = RedisClusterClient.create(seed);
        try (StatefulRedisClusterConnection<String, String> connection = client.connect()) {
            connection.setTimeout(seed.getTimeout());
            List<Finding> findings = new ArrayList<>();
            String info = connection.sync().clusterInfo();
            // CLUSTER NODES as text: the same on every Lettuce version (their node model's flags and names have moved)
            List<String[]> nodes = connection.sync().clusterNodes().lines().map(String::trim).filter(l -> !l.isEmpty())
                    .map(l -> l.split(" ")).toList();
            List<String[]> masters = nodes.stream().filter(n -> n.length > 8 && has(n[2], "master") && !has(n[2], "fail")).toList();
            List<String[]> replicas = nodes.stream().filter(n -> has(n[2], "slave") && !has(n[2], "fail") && !n[3].equals("-")).toList();
            List<String> lonely = masters.stream().filter(m -> replicas.stream().noneMatch(r -> r[3].equals(m[0]))).map(m -> address(m[1]))
                    .toList();
            String state = RedisDoctor.field(info, "cluster_state");
            String slotsOk = RedisDoctor.field(info, "cluster_slots_ok");
            String observed = "cluster_state " + state + ", cluster_slots_ok " + slotsOk + ", " + masters.size() + " master(s), "
                    + replicas.size() + " replica(s)" + (lonely.isEmpty() ? "" : ", without a replica: " + String.join(", ", lonely));
            if (!state.equals("ok") || !slotsOk.equals("16384")) {
                findings.add(CLUSTER.finding(Severity.RISKY, observed, "some slots are not served: a lock whose name hashes there can be "
                        + "neither acquired nor released until they are", CLUSTER.fix()));
            } else if (!lonely.isEmpty()) {
                findings.add(CLUSTER.finding(Severity.RISKY, observed, "a master without a replica: its loss takes its slots' locks "
                        + "and the ability to lock there with it", CLUSTER.fix()));
            } else {
                findings.add(CLUSTER.ok(observed, "every slot is served and every master has a replica to fail over to"));
            }
            Map<String, Finding> worst = new LinkedHashMap<>();
            for (String[] node : masters.stream().sorted(Comparator.comparing(n -> address(n[1]))).toList()) {
                String at = address(node[1]);
                for (Finding finding : master.apply(connection.getConnection(node[0]))) {
                    Finding labelled = new Finding(finding.check(), finding.severity(), at + ": " + finding.observed(), finding.why(), finding.fix());
                    worst.merge(finding.check(), labelled, (a, b) -> b.severity().compareTo(a.severity()) > 0 ? b : a);
                }
            }
            findings.addAll(worst.values());
            return findings;
        } finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
        }
    }
}
