package io.distlock.redis.testing;

import io.distlock.servers.Await;
import io.distlock.servers.BackendControl;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A Redis Cluster of three masters with one replica each, on free ports, formed with CLUSTER MEET,
 * ADDSLOTSRANGE and REPLICATE (no redis-cli needed). {@link #control()} stops, pauses or restarts every
 * node at once; a restarted node keeps its cluster configuration (nodes.conf) but not its data.
 */
public final class RedisClusterGroup implements AutoCloseable {
    private static final int SLOTS = 16384;
    private final List<RedisServer> nodes = new ArrayList<>();

    private RedisClusterGroup() {}

    /** Starts and forms the cluster; waits until every node reports cluster_state:ok. */
    public static RedisClusterGroup launch() {
        RedisClusterGroup group = new RedisClusterGroup();
        try {
            for (int i = 0; i < 6; i++) {
                group.nodes.add(RedisServer.launch("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                        "--cluster-node-timeout", "2000", "--cluster-replica-validity-factor", "0", "--repl-diskless-sync-delay", "0"));
            }
            RedisServer first = group.nodes.get(0);
            for (RedisServer node : group.nodes.subList(1, 6)) {
                Resp.call(node.port(), "CLUSTER", "MEET", "127.0.0.1", Integer.toString(first.port()));
            }
            for (int m = 0; m < 3; m++) {
                int from = m * SLOTS / 3;
                int to = (m + 1) * SLOTS / 3 - 1;
                Resp.call(group.nodes.get(m).port(), "CLUSTER", "ADDSLOTSRANGE", Integer.toString(from), Integer.toString(to));
            }
            Await.until(Duration.ofSeconds(30), "all six nodes know each other", () -> group.nodes.stream()
                    .allMatch(node -> Resp.text(node.port(), "CLUSTER", "NODES").lines().count() == 6));
            for (int r = 0; r < 3; r++) {
                String masterId = Resp.text(group.nodes.get(r).port(), "CLUSTER", "MYID");
                RedisServer replica = group.nodes.get(r + 3);
                Await.succeeds(Duration.ofSeconds(30), "replica " + replica + " attaches to its master",
                        () -> Resp.text(replica.port(), "CLUSTER", "REPLICATE", masterId));
            }
            group.awaitHealthy(Duration.ofSeconds(60));
            return group;
        } catch (RuntimeException e) {
            group.close();
            throw e;
        }
    }

    /** Waits until every running node reports cluster_state:ok and each master has its replica in sync. */
    public void awaitHealthy(Duration timeout) {
        Await.untilAnswered(timeout, "the cluster is healthy", () -> nodes.stream().filter(RedisServer::isRunning).allMatch(node ->
                Resp.text(node.port(), "CLUSTER", "INFO").contains("cluster_state:ok")
                        && ("master".equals(Resp.info(node.port(), "replication", "role"))
                                || "up".equals(Resp.info(node.port(), "replication", "master_link_status")))));
    }

    /** Returns a seed URI for a cluster client (the first node; clients discover the others from it). */
    public String seedUri() {
        return nodes.get(0).uri();
    }

    /** Returns all six nodes (the first three started as masters). */
    public List<RedisServer> nodes() {
        return List.copyOf(nodes);
    }

    /** Returns the node that currently serves {@code key} as master. */
    public RedisServer masterOf(String key) {
        RedisServer any = nodes.stream().filter(n -> n.isRunning() && n.ping()).findFirst()
                .orElseThrow(() -> new IllegalStateException("no cluster node is running"));
        long slot = Long.parseLong(Resp.text(any.port(), "CLUSTER", "KEYSLOT", key));
        for (RedisServer node : nodes) {
            if (!node.isRunning() || !node.ping()) {
                continue;
            }
            for (String line : Resp.text(node.port(), "CLUSTER", "NODES").split("\n")) {
                String[] f = line.split(" ");
                if (f.length > 8 && f[2].contains("myself") && f[2].contains("master")) {
                    for (int i = 8; i < f.length; i++) {
                        String[] range = f[i].split("-");
                        if (range[0].startsWith("[")) {
                            continue;
                        }
                        long from = Long.parseLong(range[0]);
                        long to = range.length > 1 ? Long.parseLong(range[1]) : from;
                        if (slot >= from && slot <= to) {
                            return node;
                        }
                    }
                }
            }
        }
        throw new IllegalStateException("no running master serves slot " + slot);
    }

    /**
     * Kills the master that serves {@code key} and returns the node that took its slots over. Redis
     * promotes the replica by itself within seconds (node timeout 2 s, a vote of the other masters); if that
     * has not happened after {@code autoWait} (seen once on a loaded 2-core machine: no promotion in 60 s),
     * the replica is told to take over with CLUSTER FAILOVER TAKEOVER, which needs no vote, and that is
     * printed. For tests of how clients follow a promotion, not of how Redis decides on one.
     */
    public RedisServer killMasterAndAwaitPromotion(String key, Duration autoWait) {
        RedisServer old = masterOf(key);
        List<RedisServer> replicas = nodes.stream()
                .filter(node -> node != old && String.valueOf(old.port()).equals(Resp.info(node.port(), "replication", "master_port")))
                .toList();
        old.kill();
        try {
            Await.untilAnswered(autoWait, "a replica took over the shard", () -> masterOf(key) != old);
        } catch (AssertionError notPromoted) {
            RedisServer replica = replicas.stream().findFirst()
                    .orElseThrow(() -> new IllegalStateException("the killed master " + old.uri() + " had no replica", notPromoted));
            System.err.println("Redis Cluster did not promote a replica of " + old.uri() + " within " + autoWait
                    + "; forcing CLUSTER FAILOVER TAKEOVER on " + replica.uri());
            Resp.call(replica.port(), "CLUSTER", "FAILOVER", "TAKEOVER");
            Await.untilAnswered(Duration.ofSeconds(30), "the forced replica took over the shard", () -> masterOf(key) != old);
        }
        return masterOf(key);
    }

    /** Stop, kill, start, pause and resume applied to every node; start waits until the cluster is healthy. */
    public BackendControl control() {
        return BackendControl.allOf(nodes, () -> awaitHealthy(Duration.ofSeconds(60)));
    }

    @Override
    public void close() {
        nodes.forEach(RedisServer::close);
    }
}
