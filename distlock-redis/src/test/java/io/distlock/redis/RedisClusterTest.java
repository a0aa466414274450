package io.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.Lease;
import io.distlock.LeaseLostException;
import io.distlock.LeaseLostException.Reason;
import io.distlock.LockClient;
import io.distlock.LockOptions;
import io.distlock.testkit.Await;
import io.distlock.testkit.RedisClusterGroup;
import io.distlock.testkit.RedisServer;
import io.distlock.testkit.Resp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Cluster specifics: sharded wake-ups and a shard's failover. */
class RedisClusterTest {
    private static final String KEY = RedisKeys.defaults().lockKey("orders");
    private static final String CHANNEL = RedisKeys.defaults().releaseChannel("orders");

    private static LockClient client(RedisClusterGroup cluster) {
        return RedisLockClient.builder().uri(cluster.seedUri()).cluster(true).leaseTime(Duration.ofSeconds(10))
                .operationTimeout(Duration.ofSeconds(2)).build();
    }

    private static long calls(RedisServer node, String command) {
        for (String line : Resp.text(node.port(), "INFO", "commandstats").split("\r?\n")) {
            if (line.startsWith("cmdstat_" + command + ":calls=")) {
                return Long.parseLong(line.substring(line.indexOf('=') + 1, line.indexOf(',')));
            }
        }
        return 0;
    }

    @Test
    void aWaiterIsWokenBySharedPubSubOnTheLocksShardOnly() throws Exception {
        try (RedisClusterGroup cluster = RedisClusterGroup.launch(); LockClient holder = client(cluster); LockClient waiter = client(cluster)) {
            RedisServer shard = cluster.masterOf(KEY);
            Lease lease = holder.getLock("orders").acquire(Duration.ofSeconds(5));
            CompletableFuture<Lease> waiting = CompletableFuture.supplyAsync(() -> {
                try {
                    return waiter.getLock("orders").acquire(Duration.ofSeconds(30));
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            Await.until(Duration.ofSeconds(10), "the waiter subscribed on the lock's shard",
                    () -> "1".equals(((List<?>) Resp.call(shard.port(), "PUBSUB", "SHARDNUMSUB", CHANNEL)).get(1).toString()));

            lease.close();

            Lease second = waiting.get(20, TimeUnit.SECONDS);
            assertThat(second.fencingToken()).isGreaterThan(lease.fencingToken());
            assertThat(calls(shard, "spublish")).as("the release was published on the shard").isPositive();
            for (RedisServer node : cluster.nodes()) {
                assertThat(calls(node, "publish")).as("no classic PUBLISH broadcast on %s", node).isZero();
            }
            second.close();
        }
    }

    @Test
    void namesWithBracesUnicodeOrTheLongestLengthSupportEveryOperation() throws Exception {
        try (RedisClusterGroup cluster = RedisClusterGroup.launch(); LockClient holder = client(cluster)) {
            for (String name : LockNameScenario.NAMES) {
                LockNameScenario.run(name, holder, () -> RedisLockClient.builder().uri(cluster.seedUri()).cluster(true)
                        .fallbackPoll(Duration.ofMinutes(5)).build(), LockNameScenario.cluster(cluster));
            }
        }
    }

    @Test
    void locksKeepWorkingWhenTheMasterOfTheirShardFailsOver() throws Exception {
        try (RedisClusterGroup cluster = RedisClusterGroup.launch(); LockClient holder = client(cluster); LockClient other = client(cluster)) {
            Lease lease = holder.getLock("orders").acquire(Duration.ofSeconds(5));
            awaitReplicated(cluster, cluster.masterOf(KEY));

            failOver(cluster);

            Await.succeeds(Duration.ofSeconds(30), "another client reaches the promoted master and finds the lock held", () -> {
                assertThat(other.getLock("orders").tryAcquire(Duration.ZERO)).as("the replicated lock is still held").isEmpty();
                return null;
            });
            try (Lease elsewhere = other.getLock("invoices").acquire(Duration.ofSeconds(5))) {
                assertThat(elsewhere.isValid()).isTrue();
            }
            RedisServer promoted = cluster.masterOf(KEY);
            long before = (Long) Resp.call(promoted.port(), "PTTL", KEY);
            Await.until(Duration.ofSeconds(20), "the holder renews on the promoted master", () -> (Long) Resp.call(promoted.port(), "PTTL", KEY) > before);
            assertThat(lease.isValid()).isTrue();
            lease.close();
        }
    }

    /** Waits until the lock's key has reached the replica of the master that serves it. */
    private static void awaitReplicated(RedisClusterGroup cluster, RedisServer master) {
        long written = Long.parseLong(Resp.info(master.port(), "replication", "master_repl_offset"));
        Await.until(Duration.ofSeconds(10), "the lock reached the shard's replica", () -> cluster.nodes().stream()
                .filter(node -> String.valueOf(master.port()).equals(Resp.info(node.port(), "replication", "master_port")))
                .anyMatch(node -> Long.parseLong(Resp.info(node.port(), "replication", "slave_repl_offset")) >= written));
    }

    /** Kills the master of the lock's shard and returns the replica that took over. */
    private static RedisServer failOver(RedisClusterGroup cluster) {
        RedisServer old = cluster.masterOf(KEY);
        old.kill();
        Await.until(Duration.ofSeconds(30), "a replica took over the shard", () -> {
            try {
                return cluster.masterOf(KEY) != old;
            } catch (RuntimeException e) {
                return false;
            }
        });
        return cluster.masterOf(KEY);
    }

    private static long shardSubscribers(RedisServer node) {
        return Long.parseLong(((List<?>) Resp.call(node.port(), "PUBSUB", "SHARDNUMSUB", CHANNEL)).get(1).toString());
    }

    @Test
    void aWaiterThatWaitsThroughAShardFailoverIsWokenByAReleaseOnThePromotedMaster() throws Exception {
        LockOptions longLease = LockOptions.builder().leaseTime(Duration.ofMinutes(2)).build();
        try (RedisClusterGroup cluster = RedisClusterGroup.launch(); LockClient holder = client(cluster);
                LockClient waiter = RedisLockClient.builder().uri(cluster.seedUri()).cluster(true).fallbackPoll(Duration.ofMinutes(5))
                        .operationTimeout(Duration.ofSeconds(2)).build()) {
            Lease lease = holder.getLock("orders", longLease).acquire(Duration.ofSeconds(5));
            awaitReplicated(cluster, cluster.masterOf(KEY));
            CompletableFuture<Lease> waiting = CompletableFuture.supplyAsync(() -> {
                try {
                    return waiter.getLock("orders", longLease).acquire(Duration.ofMinutes(3));
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            RedisServer old = cluster.masterOf(KEY);
            Await.until(Duration.ofSeconds(10), "the waiter subscribed on the lock's shard", () -> shardSubscribers(old) == 1);

            RedisServer promoted = failOver(cluster);
            Await.until(Duration.ofSeconds(30), "the waiter subscribed on the promoted master", () -> shardSubscribers(promoted) == 1);
            lease.close();

            // neither the fallback poll (5 min) nor the holder's lease (2 min) can explain a wake-up within 20 s
            Lease next = waiting.get(20, TimeUnit.SECONDS);
            assertThat(next.fencingToken()).isGreaterThan(lease.fencingToken());
            next.close();
        }
    }

    /** Returns one lock name per master, in the order of {@code masters}. */
    private static List<String> oneNamePerShard(RedisClusterGroup cluster, List<RedisServer> masters) {
        List<String> names = new ArrayList<>(Collections.nCopies(masters.size(), (String) null));
        for (int i = 0; names.contains(null); i++) {
            String name = "shard-" + i;
            int shard = masters.indexOf(cluster.masterOf(RedisKeys.defaults().lockKey(name)));
            if (names.get(shard) == null) {
                names.set(shard, name);
            }
        }
        return names;
    }

    @Test
    void aPausedShardDoesNotFailTheRenewalsOfLocksOnTheOtherShards() throws Exception {
        Duration lease = Duration.ofSeconds(3);
        try (RedisClusterGroup cluster = RedisClusterGroup.launch();
                // a short operation timeout, so that the paused shard's renewal fails well within the others' leases
                LockClient client = Await.succeeds(Duration.ofSeconds(20), "a client with a short timeout connects", () -> RedisLockClient.builder()
                        .uri(cluster.seedUri()).cluster(true).leaseTime(lease).operationTimeout(Duration.ofMillis(800)).build())) {
            // no failover while the master is paused: the shard just stops answering, the others stay up
            cluster.nodes().forEach(node -> Resp.call(node.port(), "CONFIG", "SET", "cluster-node-timeout", "60000"));
            List<RedisServer> masters = cluster.nodes().subList(0, 3);
            List<String> names = oneNamePerShard(cluster, masters);
            List<Lease> leases = new ArrayList<>();
            for (String name : names) { // acquired together, so the watchdog renews them in one batch
                leases.add(client.getLock(name).acquire(Duration.ofSeconds(5)));
            }
            CompletableFuture<LeaseLostException> lost = new CompletableFuture<>();
            leases.get(0).onLost(lost::complete);

            masters.get(0).pause();
            try {
                long start = System.nanoTime();
                assertThat(lost.get(20, TimeUnit.SECONDS).reason()).as("the paused shard's lease").isEqualTo(Reason.EXPIRED);
                Await.until(Duration.ofSeconds(30), "three lease times passed", () -> System.nanoTime() - start > lease.multipliedBy(3).toNanos());
                assertThat(leases.get(1).isValid()).as("lease on a healthy shard").isTrue();
                assertThat(leases.get(2).isValid()).as("lease on a healthy shard").isTrue();
            } finally {
                masters.get(0).resume();
            }
            leases.forEach(Lease::close);
        }
    }

    @Test
    void clusterModeRefusesSettingsItCannotHonour() {
        assertThatThrownBy(() -> RedisLockClient.builder().uri("redis://127.0.0.1:1").cluster(true).minReplicas(1).build())
                .hasMessageContaining("minReplicas is not supported with cluster(true)");
        assertThatThrownBy(() -> RedisLockClient.builder().uri("redis-sentinel://127.0.0.1:1#m").cluster(true).build())
                .hasMessageContaining("seed node");
    }
}
