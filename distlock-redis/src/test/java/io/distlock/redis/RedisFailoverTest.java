package io.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.BackendUnavailableException;
import io.distlock.DistributedLock;
import io.distlock.Lease;
import io.distlock.LeaseLostException;
import io.distlock.redis.testing.RedisReplicaGroup;
import io.distlock.redis.testing.RedisServer;
import io.distlock.redis.testing.Resp;
import io.distlock.servers.Await;
import io.distlock.servers.TcpProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * What a Sentinel failover does to a held lock, with and without replica acknowledgement (WAIT).
 * Each replica replicates through a proxy, so a test can keep a write from reaching it.
 */
class RedisFailoverTest {
    private static final Duration LEASE = Duration.ofSeconds(10);
    private static final String KEY = RedisKeys.defaults().lockKey("orders");

    private static RedisLockClient client(String uri, int minReplicas) {
        return RedisLockClient.builder().uri(uri).leaseTime(LEASE).minReplicas(minReplicas)
                .operationTimeout(Duration.ofSeconds(2)).replicaAckTimeout(Duration.ofMillis(500)).build();
    }

    private static long pttl(RedisServer server) {
        return (Long) Resp.call(server.port(), "PTTL", KEY);
    }

    @Test
    void anAcknowledgedLockIsStillHeldAfterTheMasterDiesAndAReplicaTakesOver() throws Exception {
        try (RedisReplicaGroup group = RedisReplicaGroup.launch(2, true).withSentinels(3, Duration.ofSeconds(1));
                RedisLockClient holder = client(group.sentinelUri(), 1);
                RedisLockClient other = client(group.sentinelUri(), 0)) {
            // Replication is slow and is cut as soon as the acquire returns: only a write that WAIT saw
            // acknowledged can be on the replica that is promoted (on loopback, without the delay,
            // asynchronous replication would get it there in time even without WAIT).
            group.replicationLink(0).delay(Duration.ofMillis(100));
            group.replicationLink(1).delay(Duration.ofMillis(100));
            Lease lease = holder.getLock("orders").acquire(Duration.ofSeconds(5));
            group.replicationLink(0).cut();
            group.replicationLink(1).cut();
            RedisServer old = group.master();

            old.kill();
            RedisServer promoted = group.awaitFailover(old, Duration.ofSeconds(30));

            assertThat(RedisKeys.isHeldValue((String) Resp.call(promoted.port(), "GET", KEY)))
                    .as("the promoted replica has the acknowledged lock").isTrue();
            long before = pttl(promoted);
            Await.until(Duration.ofSeconds(20), "the holder renews its lease on the promoted master", () -> pttl(promoted) > before);
            assertThat(lease.isValid()).as("the holder's lease survived the failover").isTrue();
            assertThat(other.getLock("orders").tryAcquire(Duration.ZERO)).as("nobody else gets the lock").isEmpty();
            lease.close();
            assertThat(other.getLock("orders").tryAcquire(Duration.ofSeconds(5))).isPresent();
        }
    }

    @Test
    void withoutAcknowledgementAFailoverCanLoseALockAndTheHolderIsTold() throws Exception {
        try (RedisReplicaGroup group = RedisReplicaGroup.launch(1, true).withSentinels(3, Duration.ofSeconds(1));
                RedisLockClient holder = client(group.sentinelUri(), 0);
                RedisLockClient other = client(group.sentinelUri(), 0)) {
            group.replicationLink(0).cut(); // the write below never reaches the replica
            Lease lease = holder.getLock("orders").acquire(Duration.ofSeconds(5));
            CompletableFuture<LeaseLostException> lost = new CompletableFuture<>();
            lease.onLost(lost::complete);
            RedisServer old = group.master();

            old.kill();
            group.awaitFailover(old, Duration.ofSeconds(30));

            Lease second = Await.succeeds(Duration.ofSeconds(20), "another client acquires the lost lock on the promoted replica",
                    () -> other.getLock("orders").tryAcquire(Duration.ZERO).orElseThrow());
            assertThat(second.fencingToken()).as("the new token is still larger").isGreaterThan(lease.fencingToken());
            assertThat(lost.get(20, java.util.concurrent.TimeUnit.SECONDS).getMessage()).contains("orders");
            assertThat(lease.isValid()).isFalse();
        }
    }

    @Test
    void aUserWithTheDocumentedAclAndWaitUsesEveryKindWithReplicaAcknowledgement() throws Exception {
        try (RedisReplicaGroup group = RedisReplicaGroup.launch(1, false)) {
            int master = group.master().port();
            List<String> setuser = new ArrayList<>(List.of("ACL", "SETUSER", "locker"));
            setuser.addAll(List.of((RedisLockClientTest.DOCUMENTED_ACL + " +wait").split(" ")));
            assertThat(Resp.call(master, setuser.toArray(String[]::new))).isEqualTo("OK");
            String uri = "redis://locker:lockerpw@127.0.0.1:" + master;
            try (RedisLockClient holder = RedisLockClient.builder().uri(uri).minReplicas(1).fallbackPoll(Duration.ofMinutes(5)).build();
                    RedisLockClient waiter = RedisLockClient.builder().uri(uri).minReplicas(1).fallbackPoll(Duration.ofMinutes(5)).build()) {
                RedisLockClientTest.useEveryKind(holder, waiter);
            }
            assertThat(Resp.text(master, "ACL", "LOG")).as("nothing was refused").isEmpty();
            assertThat(Long.parseLong(Resp.info(master, "commandstats", "cmdstat_wait").replaceAll("calls=(\\d+),.*", "$1")))
                    .as("the writes waited for the replica").isPositive();
        }
    }

    @Test
    void anAcquireNoReplicaAcknowledgesIsRolledBackAndNamesTheProblem() throws Exception {
        try (RedisReplicaGroup group = RedisReplicaGroup.launch(1, true);
                RedisLockClient holder = client(group.master().uri(), 1)) {
            group.replicationLink(0).cut();

            assertThatThrownBy(() -> holder.getLock("orders").acquire(Duration.ofSeconds(5)))
                    .isInstanceOf(BackendUnavailableException.class)
                    .hasMessageContaining("acknowledged by 0 replica(s)")
                    .hasMessageContaining("minReplicas")
                    .hasMessageContaining("rolled back");
            assertThat(RedisKeys.isHeldValue((String) Resp.call(group.master().port(), "GET", KEY)))
                    .as("nothing is left held on the master").isFalse();

            group.replicationLink(0).heal();
            Lease lease = Await.succeeds(Duration.ofSeconds(20), "acquire works once the replica is back",
                    () -> holder.getLock("orders").acquire(Duration.ofSeconds(1)));
            assertThat(lease.isValid()).isTrue();
            lease.close();
        }
    }

    @Test
    void aReleaseNoReplicaAcknowledgesIsMadeOnTheMasterAndReportedAsNotAcknowledged() throws Exception {
        try (RedisReplicaGroup group = RedisReplicaGroup.launch(1, true);
                RedisLockClient holder = client(group.master().uri(), 1)) {
            DistributedLock lock = holder.getLock("orders");
            // acknowledged by the replica: once it has synced, which a loaded machine may take longer than one WAIT for
            Await.succeeds(Duration.ofSeconds(20), "the replica acknowledges the acquire", () -> {
                lock.lock();
                return lock;
            });
            group.replicationLink(0).cut();

            assertThatThrownBy(lock::unlock)
                    .isInstanceOf(BackendUnavailableException.class)
                    .hasMessageContaining("release of lock 'orders'")
                    .hasMessageContaining("acknowledged by 0 replica(s)")
                    .hasMessageContaining("minReplicas")
                    .hasMessageContaining("may not survive a failover");
            assertThat(lock.isHeldByCurrentThread()).isFalse();
            assertThat(RedisKeys.isHeldValue((String) Resp.call(group.master().port(), "GET", KEY))).as("released on the master").isFalse();
        }
    }

    @Test
    void aWaitAnswerFromAfterAReconnectDoesNotCountAndTheAcquireIsRolledBack() throws Exception {
        try (RedisReplicaGroup group = RedisReplicaGroup.launch(1, true); TcpProxy clientLink = TcpProxy.to(group.master().port());
                RedisLockClient holder = RedisLockClient.builder().uri("redis://127.0.0.1:" + clientLink.port()).minReplicas(1)
                        .replicaAckTimeout(Duration.ofSeconds(2)).operationTimeout(Duration.ofSeconds(20)).build()) {
            RedisServer master = group.master();
            group.replicationLink(0).cut();
            CompletableFuture<Lease> acquiring = CompletableFuture.supplyAsync(() -> {
                try {
                    return holder.getLock("orders").acquire(Duration.ofSeconds(5));
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            Await.until(Duration.ofSeconds(10), "the acquire's WAIT blocks on the master",
                    () -> "1".equals(Resp.info(master.port(), "clients", "blocked_clients")));

            // Drop the client's connection while WAIT is pending, let the replica catch up, then let the
            // client reconnect: Lettuce sends WAIT again on a connection that has written nothing, and the
            // replica acknowledges that at once. It says nothing about the lock.
            clientLink.cut();
            group.replicationLink(0).heal();
            Await.until(Duration.ofSeconds(20), "the replica is linked again",
                    () -> "1".equals(Resp.info(master.port(), "replication", "connected_slaves")));
            clientLink.heal();

            assertThatThrownBy(() -> acquiring.get(30, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(BackendUnavailableException.class)
                    .hasMessageContaining("minReplicas")
                    .hasMessageContaining("rolled back");
            assertThat(RedisKeys.isHeldValue((String) Resp.call(master.port(), "GET", KEY))).as("rolled back on the master").isFalse();
        }
    }

    /**
     * Issue 28, finding 2: a release handed a fair lock to its next waiter by a message published inside the release
     * script, before the replication wait; the waiter held from the message a grant that no replica had, so a failover
     * could hand the lock to a second holder while both believed they held it. With replica acknowledgement, a waiter
     * holds a handed-on grant only once the replicas have it: here never, since the replication link is cut.
     */
    @Test
    void aFairLockHandedOnByAReleaseIsNotHeldByTheWaiterUntilAReplicaHasTheGrant() throws Exception {
        try (RedisReplicaGroup group = RedisReplicaGroup.launch(1, true);
                RedisLockClient holder = client(group.master().uri(), 1);
                RedisLockClient waiting = RedisLockClient.builder().uri(group.master().uri()).leaseTime(LEASE).minReplicas(1)
                        .operationTimeout(Duration.ofSeconds(2)).replicaAckTimeout(Duration.ofMillis(500))
                        .fallbackPoll(Duration.ofMinutes(5)).build()) {
            // acknowledged by the replica: once it has synced, which a loaded machine may take longer than one WAIT for
            Lease held = Await.succeeds(Duration.ofSeconds(20), "the replica acknowledges the acquire",
                    () -> holder.getFairLock("orders").acquire(Duration.ofSeconds(5)));
            java.util.concurrent.atomic.AtomicReference<Thread> waiterThread = new java.util.concurrent.atomic.AtomicReference<>();
            CompletableFuture<java.util.Optional<Lease>> waiter = CompletableFuture.supplyAsync(() -> {
                waiterThread.set(Thread.currentThread());
                try {
                    return waiting.getFairLock("orders").tryAcquire(Duration.ofSeconds(20));
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            // queued, its join and first turn check acknowledged, and asleep until the grant reaches it
            Await.until(Duration.ofSeconds(10), "the waiter waits for its turn", () -> waitsForItsTurn(waiterThread.get()));
            group.replicationLink(0).cut();

            assertThatThrownBy(held::close).isInstanceOf(BackendUnavailableException.class).hasMessageContaining("minReplicas");

            // the release granted the waiter on the master; without a replica's acknowledgement the waiter must not
            // hold it: its own turn check finds the grant, WAIT fails, it gives the grant up and reports the shortfall
            assertThatThrownBy(() -> waiter.get(30, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(BackendUnavailableException.class).hasMessageContaining("minReplicas");
            group.replicationLink(0).heal();
            Lease next = Await.succeeds(Duration.ofSeconds(20), "the lock is taken once the replica is back",
                    () -> waiting.getFairLock("orders").acquire(Duration.ofSeconds(1)));
            next.close();
        }
    }

    /** Whether {@code thread} sleeps in the engine's wait for a turn (after its calls were answered "not yet"). */
    private static boolean waitsForItsTurn(Thread thread) {
        return thread != null && java.util.Arrays.stream(thread.getStackTrace())
                .anyMatch(frame -> frame.getClassName().endsWith(".ReleaseSignal") && frame.getMethodName().equals("awaitChange"));
    }

    @Test
    void badReplicaSettingsAreRefusedWithTheReason() {
        assertThatThrownBy(() -> RedisLockClient.builder().minReplicas(-1)).hasMessageContaining("minReplicas must be between 0 and 100");
        assertThatThrownBy(() -> RedisLockClient.builder().uri("redis://127.0.0.1:1").minReplicas(1)
                .replicaAckTimeout(Duration.ofSeconds(2)).operationTimeout(Duration.ofSeconds(3)).build())
                .hasMessageContaining("replicaAckTimeout (PT2S) must be at most half the operationTimeout (PT3S)");
        assertThatThrownBy(() -> RedisLockClient.builder().uri("sentinel://x")).hasMessageContaining("redis-sentinel://");
    }
}
