package io.distlock.redis.testing;

import io.distlock.servers.Await;
import io.distlock.servers.TcpProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A Redis master with replicas on free ports, optionally watched by Sentinels, for failover tests.
 * Replicas are attached with REPLICAOF; {@link #awaitReplicated()} waits until they have every write.
 */
public final class RedisReplicaGroup implements AutoCloseable {
    /** The master name the Sentinels monitor. */
    public static final String MASTER_NAME = "distlock";

    private final List<RedisServer> servers = new ArrayList<>();
    private final List<TcpProxy> links = new ArrayList<>();
    private final List<RedisServer> sentinels = new ArrayList<>();

    private RedisReplicaGroup() {}

    /** Starts a master and {@code replicas} replicas and waits until the replicas are in sync. */
    public static RedisReplicaGroup launch(int replicas) {
        return launch(replicas, false);
    }

    /**
     * Starts a master and {@code replicas} replicas; with {@code throughProxies} each replica replicates
     * through its own {@link TcpProxy} ({@link #replicationLink(int)}), so its link can be cut to keep
     * writes from reaching it.
     */
    public static RedisReplicaGroup launch(int replicas, boolean throughProxies) {
        RedisReplicaGroup group = new RedisReplicaGroup();
        try {
            // no 5 s wait for more replicas before a full sync (Redis 7's default for diskless sync)
            RedisServer master = RedisServer.launch("--repl-diskless-sync-delay", "0");
            group.servers.add(master);
            for (int i = 0; i < replicas; i++) {
                RedisServer replica = RedisServer.launch("--repl-diskless-sync-delay", "0");
                group.servers.add(replica);
                int port = master.port();
                if (throughProxies) {
                    TcpProxy link = TcpProxy.to(master.port());
                    group.links.add(link);
                    port = link.port();
                }
                Resp.call(replica.port(), "REPLICAOF", "127.0.0.1", Integer.toString(port));
            }
            Await.until(Duration.ofSeconds(20), replicas + " replicas connected to the master",
                    () -> Long.parseLong(String.valueOf(Resp.info(master.port(), "replication", "connected_slaves"))) >= replicas);
            group.awaitReplicated();
            return group;
        } catch (RuntimeException e) {
            group.close();
            throw e;
        }
    }

    /** Returns the proxy that replica {@code index} (0-based) replicates through. */
    public TcpProxy replicationLink(int index) {
        if (links.isEmpty()) {
            throw new IllegalStateException("the group was launched without replication proxies");
        }
        return links.get(index);
    }

    /**
     * Starts {@code count} Sentinels (quorum: a majority of them) that declare the master down after
     * {@code downAfter}, and waits until each knows every replica and the other Sentinels.
     */
    public RedisReplicaGroup withSentinels(int count, Duration downAfter) {
        RedisServer master = master();
        for (int i = 0; i < count; i++) {
            sentinels.add(RedisServer.launchSentinel(MASTER_NAME, master.port(), count / 2 + 1, downAfter));
        }
        int replicas = servers.size() - 1;
        Await.until(Duration.ofSeconds(30), "sentinels discovered the replicas and each other", () -> sentinels.stream().allMatch(s -> {
            String status = Resp.info(s.port(), "sentinel", "master0");
            return status != null && status.contains("slaves=" + replicas) && status.contains("sentinels=" + count);
        }));
        return this;
    }

    /** Returns {@code redis-sentinel://127.0.0.1:p1,127.0.0.1:p2,...#distlock}. */
    public String sentinelUri() {
        if (sentinels.isEmpty()) {
            throw new IllegalStateException("no sentinels: call withSentinels first");
        }
        return "redis-sentinel://" + sentinels.stream().map(s -> "127.0.0.1:" + s.port()).collect(Collectors.joining(",")) + "#" + MASTER_NAME;
    }

    /** Returns the server that currently reports role master (the first one, if several do). */
    public RedisServer master() {
        for (RedisServer server : servers) {
            if (server.isRunning() && server.ping() && "master".equals(Resp.info(server.port(), "replication", "role"))) {
                return server;
            }
        }
        throw new IllegalStateException("no running server of the group is a master");
    }

    /** Returns every data server (master and replicas), in launch order. */
    public List<RedisServer> servers() {
        return List.copyOf(servers);
    }

    /** Returns the Sentinels. */
    public List<RedisServer> sentinels() {
        return List.copyOf(sentinels);
    }

    /** Waits until every running replica has processed the master's whole replication stream. */
    public void awaitReplicated() {
        RedisServer master = master();
        Await.untilAnswered(Duration.ofSeconds(20), "replicas caught up with the master", () -> {
            long offset = Long.parseLong(Resp.info(master.port(), "replication", "master_repl_offset"));
            for (RedisServer server : servers) {
                if (server != master && server.isRunning()) {
                    String link = Resp.info(server.port(), "replication", "master_link_status");
                    String replicaOffset = Resp.info(server.port(), "replication", "slave_repl_offset");
                    if (!"up".equals(link) || replicaOffset == null || Long.parseLong(replicaOffset) < offset) {
                        return false;
                    }
                }
            }
            return true;
        });
    }

    /** Returns the server the Sentinels currently name as master. */
    public RedisServer sentinelMaster() {
        List<?> address = (List<?>) Resp.call(sentinels.get(0).port(), "SENTINEL", "get-master-addr-by-name", MASTER_NAME);
        if (address == null) {
            throw new IllegalStateException("the sentinels know no master named " + MASTER_NAME);
        }
        int port = Integer.parseInt(String.valueOf(address.get(1)));
        return servers.stream().filter(s -> s.port() == port).findFirst()
                .orElseThrow(() -> new IllegalStateException("the sentinels name an unknown master on port " + port));
    }

    /**
     * Waits until the group has converged after a failover: the server the Sentinels name is the only
     * running server that reports role master, and every other running server (a restarted old master
     * included) replicates from it with its link up. Merely waiting for the old master to be a replica
     * again was not enough: in a 10-minute check, acquisitions were refused for lack of replica
     * acknowledgements for about 10 s after that point.
     */
    public void awaitConverged(Duration timeout) {
        Await.untilAnswered(timeout, "one master, named by the Sentinels, with every other server its replica", () -> {
            RedisServer master = sentinelMaster();
            for (RedisServer server : servers) {
                if (!server.isRunning()) {
                    continue;
                }
                String role = Resp.info(server.port(), "replication", "role");
                if (server == master) {
                    if (!"master".equals(role)) {
                        return false;
                    }
                } else if (!"slave".equals(role)
                        || !String.valueOf(master.port()).equals(Resp.info(server.port(), "replication", "master_port"))
                        || !"up".equals(Resp.info(server.port(), "replication", "master_link_status"))) {
                    return false;
                }
            }
            return true;
        });
    }

    /** Waits until the Sentinels name a master other than {@code old} and that server reports role master. */
    public RedisServer awaitFailover(RedisServer old, Duration timeout) {
        return Await.succeeds(timeout, "sentinels promoted a replica of " + old, () -> {
            RedisServer promoted = sentinelMaster();
            if (promoted == old || !"master".equals(Resp.info(promoted.port(), "replication", "role"))) {
                throw new IllegalStateException("not yet failed over");
            }
            return promoted;
        });
    }

    @Override
    public void close() {
        sentinels.forEach(RedisServer::close);
        servers.forEach(RedisServer::close);
        links.forEach(TcpProxy::close);
    }

    @Override
    public String toString() {
        return "RedisReplicaGroup[" + servers + (sentinels.isEmpty() ? "" : ", sentinels " + sentinels) + "]";
    }
}
