package io.distlock.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.DistributedLock;
import io.distlock.Lease;
import io.distlock.LeaseLostException;
import io.distlock.LockClient;
import io.distlock.LockListener;
import io.distlock.etcd.testing.EtcdCluster;
import io.distlock.etcd.testing.EtcdClusterExtension;
import io.distlock.servers.Await;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Locks on a 3-member etcd cluster while members die: a holder keeps its lock, waiters keep their place. */
class EtcdClusterLockTest {
    private static final Duration SOON = Duration.ofSeconds(30);
    @RegisterExtension
    static final EtcdClusterExtension etcd = EtcdClusterExtension.cluster(3);
    private final AtomicInteger renewals = new AtomicInteger();
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private LockClient client;
    private LockClient other;

    @AfterEach
    void closeAll() {
        threads.shutdownNow();
        if (client != null) {
            client.close();
        }
        if (other != null) {
            other.close();
        }
        EtcdCluster cluster = etcd.cluster();
        cluster.members().stream().filter(member -> !member.isRunning()).forEach(member -> member.start());
    }

    private LockClient client() {
        return EtcdLockClient.builder().endpoints(etcd.target()).sessionTtl(Duration.ofSeconds(6)).operationTimeout(Duration.ofSeconds(2))
                .listener(new LockListener() {
                    @Override
                    public void renewed(Lease lease) {
                        renewals.incrementAndGet();
                    }
                }).build();
    }

    /** Waits until the watchdog has confirmed two more renewals (with the cluster as it is now). */
    private void awaitTwoMoreRenewals() {
        int now = renewals.get();
        Await.until(SOON, "two more renewals are confirmed", () -> renewals.get() >= now + 2);
    }

    @Test
    void aHolderKeepsItsLockThroughTheLossOfAFollowerAndThenOfTheLeader() throws Exception {
        String name = "members-" + System.nanoTime();
        EtcdCluster cluster = etcd.cluster();
        client = client();
        other = client();
        Lease held = client.getLock(name).acquire();
        DistributedLock waiterLock = other.getLock(name);
        Future<Optional<Lease>> waiter = threads.submit(() -> waiterLock.tryAcquire(Duration.ofMinutes(2)));

        int leader = cluster.awaitLeader();
        int follower = (leader + 1) % 3;
        cluster.member(follower).kill();
        awaitTwoMoreRenewals();
        assertThat(held.isValid()).as("valid after a follower died").isTrue();

        cluster.member(follower).start();
        cluster.member(leader).kill();
        int next = cluster.awaitLeader();
        assertThat(next).isNotEqualTo(leader);
        awaitTwoMoreRenewals();
        assertThat(held.isValid()).as("valid after the leader died and another was elected").isTrue();
        assertThat(waiter.isDone()).as("the waiter still waits: the lock was never free, and a leader change is no error").isFalse();

        long token = held.fencingToken();
        held.close();
        Optional<Lease> handedOn = waiter.get(SOON.toSeconds(), TimeUnit.SECONDS);
        assertThat(handedOn).isPresent();
        assertThat(handedOn.get().fencingToken()).isGreaterThan(token);
        handedOn.get().close();
    }

    @Test
    void losingTheQuorumLosesTheLeaseAndLocksWorkAgainOnceItIsBack() throws Exception {
        String name = "quorum-" + System.nanoTime();
        EtcdCluster cluster = etcd.cluster();
        client = client();
        Lease held = client.getLock(name).acquire();
        List<LeaseLostException> losses = new CopyOnWriteArrayList<>();
        held.onLost(losses::add);
        cluster.member(0).kill();
        cluster.member(1).kill();
        // untrusted first (no keep-alive confirmed for two thirds of the TTL), then lost
        Await.until(SOON, "the lease is lost without a quorum", () -> !losses.isEmpty());
        assertThat(held.isValid()).isFalse();
        held.close();
        cluster.startAll();
        other = client();
        Lease again = Await.succeeds(Duration.ofSeconds(60), "the lock can be taken once the quorum is back",
                () -> other.getLock(name).acquire(Duration.ofSeconds(20)));
        assertThat(again.fencingToken()).isGreaterThan(held.fencingToken());
        again.close();
    }
}
