package io.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.Lease;
import io.distlock.LeaseLostException;
import io.distlock.LeaseLostException.Reason;
import io.distlock.LockClient;
import io.distlock.LockOptions;
import io.distlock.redis.testing.RedisClusterGroup;
import io.distlock.redis.testing.RedisServer;
import io.distlock.redis.testing.Resp;
import io.distlock.servers.Await;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.SlotHash;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Cluster specifics: sharded wake-ups, shard failovers, resharding and renewals batched per slot. Tagged {@code slow}
 * (90 s): {@code ./mvnw verify} runs it in the compatibility modules on Lettuce 6.6 and 7.5, {@code -Pslow} here.
 */
@Tag("slow")
class RedisClusterTest {
    private static final String KEY = RedisKeys.defaults().lockKey("orders");
    private static final String CHANNEL = RedisKeys.defaults().releaseChannel("orders");

    private static LockClient client(RedisClusterGroup cluster) {
        return RedisLockClient.builder().uri(cluster.seedUri()).cluster(true).leaseTime(Duration.ofSeconds(10))
                .operationTimeout(Duration.ofSeconds(2)).build();
    }

    /** A client whose waiters poll only every 5 minutes: a prompt wake-up comes from a notification. */
    private static LockClient patientClient(RedisClusterGroup cluster) {
        return RedisLockClient.builder().uri(cluster.seedUri()).cluster(true).fallbackPoll(Duration.ofMinutes(5))
                .operationTimeout(Duration.ofSeconds(2)).build();
    }

    /** Starts waiting for "orders" on another thread. */
    private static CompletableFuture<Lease> waitFor(LockClient waiter, LockOptions options) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return waiter.getLock("orders", options).acquire(Duration.ofMinutes(3));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    private static long calls(RedisServer node, String command) {
        for (String line : Resp.text(node.port(), "INFO", "commandstats").split("\r?\n")) {
            if (line.startsWith("cmdstat_" + command + ":calls=")) {
                return Long.parseLong(line.substring(line.indexOf('=') + 1, line.indexOf(',')));
            }
        }
        return 0;
    }

    /** What a Cluster user needs beyond {@link RedisLockClientTest#DOCUMENTED_ACL} (the README lists both). */
    static final String DOCUMENTED_CLUSTER_ACL = "+spublish +ssubscribe +sunsubscribe +cluster|nodes +cluster|myid +info +client|setname";

    @Test
    void aUserWithOnlyTheDocumentedClusterAclUsesEveryKindAndTheInspector() throws Exception {
        try (RedisClusterGroup cluster = RedisClusterGroup.launch()) {
            for (RedisServer node : cluster.nodes()) {
                List<String> setuser = new ArrayList<>(List.of("ACL", "SETUSER", "locker"));
                setuser.addAll(List.of((RedisLockClientTest.DOCUMENTED_ACL + " " + DOCUMENTED_CLUSTER_ACL).split(" ")));
                assertThat(Resp.call(node.port(), setuser.toArray(String[]::new))).isEqualTo("OK");
            }
            String uri = "redis://locker:lockerpw@127.0.0.1:" + cluster.nodes().get(0).port();
            try (RedisLockClient holder = RedisLockClient.builder().uri(uri).cluster(true).fallbackPoll(Duration.ofMinutes(5)).build();
                    RedisLockClient waiter = RedisLockClient.builder().uri(uri).cluster(true).fallbackPoll(Duration.ofMinutes(5)).build()) {
                RedisLockClientTest.useEveryKind(holder, waiter);
            }
            for (RedisServer node : cluster.nodes()) {
                assertThat(Resp.text(node.port(), "ACL", "LOG")).as("refused on node %d", node.port()).isEmpty();
            }
        }
    }

    @Test
    void aWaiterIsWokenBySharedPubSubOnTheLocksShardOnly() throws Exception {
        LockOptions longLease = LockOptions.builder().leaseTime(Duration.ofMinutes(2)).build();
        try (RedisClusterGroup cluster = RedisClusterGroup.launch(); LockClient holder = client(cluster);
                LockClient waiter = patientClient(cluster)) {
            RedisServer shard = cluster.masterOf(KEY);
            Lease lease = holder.getLock("orders", longLease).acquire(Duration.ofSeconds(5));
            CompletableFuture<Lease> waiting = waitFor(waiter, longLease);
            Await.until(Duration.ofSeconds(10), "the waiter subscribed on the lock's shard", () -> shardSubscribers(shard) == 1);

            lease.close();

            // neither the fallback poll (5 min) nor the holder's lease (2 min) can explain a wake-up within 20 s
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
        // a 60 s lease: the test asks whether the lock survives a failover, not whether a loaded machine (with -T2 another
        // module's servers run beside this cluster) fails over and refreshes the holder's topology within a short lease;
        // a 10 s lease once expired on CI, a 30 s one once went unrenewed for 30 s in a full build
        LockOptions lease60s = LockOptions.builder().leaseTime(Duration.ofSeconds(60)).build();
        try (RedisClusterGroup cluster = RedisClusterGroup.launch(); LockClient holder = client(cluster); LockClient other = client(cluster)) {
            Lease lease = holder.getLock("orders", lease60s).acquire(Duration.ofSeconds(5));
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
            try {
                // renewals come every 20 s (a third of the lease)
                Await.until(Duration.ofSeconds(50), "the holder renews on the promoted master",
                        () -> (Long) Resp.call(promoted.port(), "PTTL", KEY) > before);
            } catch (AssertionError notRenewed) {
                throw new AssertionError(notRenewed.getMessage() + " (PTTL " + before + " ms, now " + Resp.call(promoted.port(), "PTTL", KEY)
                        + " ms; the holder's lease valid: " + lease.isValid() + ", remaining " + lease.remaining() + ")", notRenewed);
            }
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
        return cluster.killMasterAndAwaitPromotion(KEY, Duration.ofSeconds(20));
    }

    private static long shardSubscribers(RedisServer node) {
        return Long.parseLong(((List<?>) Resp.call(node.port(), "PUBSUB", "SHARDNUMSUB", CHANNEL)).get(1).toString());
    }

    @Test
    void aWaiterThatWaitsThroughAShardFailoverIsWokenByAReleaseOnThePromotedMaster() throws Exception {
        LockOptions longLease = LockOptions.builder().leaseTime(Duration.ofMinutes(2)).build();
        try (RedisClusterGroup cluster = RedisClusterGroup.launch(); LockClient holder = client(cluster); LockClient waiter = patientClient(cluster)) {
            Lease lease = holder.getLock("orders", longLease).acquire(Duration.ofSeconds(5));
            awaitReplicated(cluster, cluster.masterOf(KEY));
            RedisServer old = cluster.masterOf(KEY);
            long asked = scriptCalls(old);
            CompletableFuture<Lease> waiting = waitFor(waiter, longLease);
            // the waiter asks, subscribes, asks again and then sleeps: kill the master only after that
            Await.until(Duration.ofSeconds(10), "the waiter subscribed on the lock's shard", () -> shardSubscribers(old) == 1);
            Await.until(Duration.ofSeconds(10), "the waiter asked twice", () -> scriptCalls(old) >= asked + 2);

            RedisServer promoted = failOver(cluster);
            Await.until(Duration.ofSeconds(30), "the waiter subscribed on the promoted master", () -> shardSubscribers(promoted) == 1);
            Await.until(Duration.ofSeconds(30), "the holder's client reaches the promoted master", () -> {
                try {
                    return holder.getLock("orders").isLocked();
                } catch (RuntimeException stillOnTheOldMaster) {
                    return false;
                }
            });
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

    /** Waits until the lease read by {@code pttl} has run down a little and then been renewed. */
    private static void awaitRenewed(LongSupplier pttl, Duration lease, String phase) {
        long[] low = {0};
        Await.until(Duration.ofSeconds(20), "the lease ran down " + phase, () -> (low[0] = pttl.getAsLong()) > 0 && low[0] < lease.toMillis() - 300);
        Await.until(Duration.ofSeconds(20), "the lease was renewed " + phase, () -> pttl.getAsLong() > low[0]);
    }

    @Test
    void renewalsAndTheReleaseFollowTheLocksSlotWhileItMovesToAnotherShard() throws Exception {
        Duration lease = Duration.ofSeconds(3);
        try (RedisClusterGroup cluster = RedisClusterGroup.launch();
                LockClient holder = RedisLockClient.builder().uri(cluster.seedUri()).cluster(true).leaseTime(lease).build()) {
            Lease held = holder.getLock("orders").acquire(Duration.ofSeconds(5));
            RedisServer source = cluster.masterOf(KEY);
            RedisServer target = cluster.nodes().subList(0, 3).stream().filter(node -> node != source).findFirst().orElseThrow();
            String slot = Resp.call(source.port(), "CLUSTER", "KEYSLOT", KEY).toString();
            String sourceId = Resp.text(source.port(), "CLUSTER", "MYID");
            String targetId = Resp.text(target.port(), "CLUSTER", "MYID");

            Resp.call(target.port(), "CLUSTER", "SETSLOT", slot, "IMPORTING", sourceId);
            Resp.call(source.port(), "CLUSTER", "SETSLOT", slot, "MIGRATING", targetId);
            awaitRenewed(() -> (Long) Resp.call(source.port(), "PTTL", KEY), lease, "while the slot is migrating (the key is still there)");

            Resp.call(source.port(), "MIGRATE", "127.0.0.1", Integer.toString(target.port()), "", "0", "5000", "KEYS", KEY);
            RedisClient raw = RedisClient.create(target.uri());
            try (StatefulRedisConnection<String, String> importing = raw.connect()) {
                // the importing target answers MOVED unless asked with ASKING first, as the client does after ASK
                awaitRenewed(() -> {
                    importing.sync().asking();
                    return importing.sync().pttl(KEY);
                }, lease, "on the target after the key moved (the source answers ASK)");
            } finally {
                raw.shutdown();
            }

            for (RedisServer master : List.of(target, source)) {
                Resp.call(master.port(), "CLUSTER", "SETSLOT", slot, "NODE", targetId);
            }
            awaitRenewed(() -> (Long) Resp.call(target.port(), "PTTL", KEY), lease, "once the target owns the slot (the source answers MOVED)");

            assertThat(held.isValid()).isTrue();
            held.close();
            String value = (String) Resp.call(target.port(), "GET", KEY);
            assertThat(value).as("released on the slot's new owner").isNotNull().startsWith(held.fencingToken() + "::released:");
        }
    }

    @Test
    void renewalsOfLocksOnManySlotsAcrossTheShardsAreBatchedPerSlot() throws Exception {
        // 20 slots with 5 lock names each: one renewal script per slot and round, not one per lock
        Map<Integer, List<String>> bySlot = new LinkedHashMap<>();
        for (int i = 0; bySlot.values().stream().filter(names -> names.size() == 5).count() < 20; i++) {
            String name = "batch-" + i;
            List<String> names = bySlot.computeIfAbsent(SlotHash.getSlot(RedisKeys.defaults().lockKey(name)), slot -> new ArrayList<>());
            if (names.size() < 5) {
                names.add(name);
            }
        }
        List<String> names = bySlot.values().stream().filter(group -> group.size() == 5).flatMap(List::stream).toList();
        Duration lease = Duration.ofSeconds(3);
        try (RedisClusterGroup cluster = RedisClusterGroup.launch();
                LockClient client = RedisLockClient.builder().uri(cluster.seedUri()).cluster(true).leaseTime(lease).build()) {
            List<RedisServer> masters = cluster.nodes().subList(0, 3);
            assertThat(names.stream().map(name -> cluster.masterOf(RedisKeys.defaults().lockKey(name))).distinct())
                    .as("the locks are spread over every shard").hasSize(3);
            List<Lease> leases = new ArrayList<>();
            for (String name : names) {
                leases.add(client.getLock(name).acquire(Duration.ofSeconds(5)));
            }
            long before = masters.stream().mapToLong(RedisClusterTest::scriptCalls).sum();
            long start = System.nanoTime();
            Await.until(Duration.ofSeconds(30), "two lease times passed", () -> System.nanoTime() - start > lease.multipliedBy(2).toNanos());
            long renewals = masters.stream().mapToLong(RedisClusterTest::scriptCalls).sum() - before;

            for (int i = 0; i < names.size(); i++) {
                String key = RedisKeys.defaults().lockKey(names.get(i));
                assertThat(RedisKeys.isHeldValue((String) Resp.call(cluster.masterOf(key).port(), "GET", key))).as("%s still held", key).isTrue();
                assertThat(leases.get(i).isValid()).isTrue();
            }
            // about 6 rounds: one script per lock would be about 600, one per slot about 120
            assertThat(renewals).as("renewal scripts").isPositive().isLessThan(300);
            leases.forEach(Lease::close);
        }
    }

    private static long scriptCalls(RedisServer node) {
        return calls(node, "evalsha") + calls(node, "eval");
    }

    @Test
    void clusterModeRefusesSettingsItCannotHonour() {
        assertThatThrownBy(() -> RedisLockClient.builder().uri("redis://127.0.0.1:1").cluster(true).minReplicas(1).build())
                .hasMessageContaining("minReplicas is not supported with cluster(true)");
        assertThatThrownBy(() -> RedisLockClient.builder().uri("redis-sentinel://127.0.0.1:1#m").cluster(true).build())
                .hasMessageContaining("seed node");
    }
}
