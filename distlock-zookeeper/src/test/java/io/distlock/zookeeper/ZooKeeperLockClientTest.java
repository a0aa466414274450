package io.distlock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.DistributedLock;
import io.distlock.Lease;
import io.distlock.LeaseLostException;
import io.distlock.LockClient;
import io.distlock.LockOptions;
import io.distlock.servers.Await;
import io.distlock.servers.ZooKeeperEnsemble;
import io.distlock.servers.ZooKeeperServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** ZooKeeper-specific behaviour: fairness, session expiry, ensemble failures, no leftover nodes. */
class ZooKeeperLockClientTest {
    private static final Duration SOON = Duration.ofSeconds(30);
    private static ZooKeeperServer server;
    private static RawZooKeeper raw;
    private final List<AutoCloseable> toClose = new ArrayList<>();
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @BeforeAll
    static void startServer() {
        server = ZooKeeperServer.launch();
        raw = new RawZooKeeper(server.connectString());
    }

    @AfterAll
    static void stopServer() {
        raw.close();
        server.close();
    }

    @AfterEach
    void closeAll() throws Exception {
        threads.shutdownNow();
        for (AutoCloseable closeable : toClose) {
            closeable.close();
        }
    }

    private LockClient client(String connectString) {
        LockClient client = new ZooKeeperClientFactory().create(connectString);
        toClose.add(client);
        return client;
    }

    @Test
    void waitersAcquireInArrivalOrderAcrossClients() throws Exception {
        String name = "fair-" + System.nanoTime();
        Lease first = client(server.connectString()).getLock(name).acquire();
        List<Integer> order = new CopyOnWriteArrayList<>();
        List<Future<?>> waiters = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            int arrival = i;
            DistributedLock lock = client(server.connectString()).getLock(name);
            waiters.add(threads.submit(() -> {
                try (Lease lease = lock.acquire(SOON)) {
                    order.add(arrival);
                }
                return null;
            }));
            int queued = i + 2;
            Await.until(SOON, "waiter " + i + " is queued", () -> raw.queue(name).size() == queued);
        }
        first.close();
        for (Future<?> waiter : waiters) {
            waiter.get(60, TimeUnit.SECONDS);
        }
        assertThat(order).containsExactly(0, 1, 2, 3, 4);
        assertThat(raw.queue(name)).isEmpty();
    }

    @Test
    void timeoutsAndInterruptsLeaveNoNodesBehind() throws Exception {
        String name = "leftovers/" + System.nanoTime();
        DistributedLock holder = client(server.connectString()).getLock(name);
        DistributedLock waiter = client(server.connectString()).getLock(name);
        Lease held = holder.acquire();
        assertThat(waiter.tryAcquire(Duration.ofMillis(200))).isEmpty();
        assertThat(waiter.tryLock()).isFalse();

        CountDownLatch queued = new CountDownLatch(1);
        Future<Object> interrupted = threads.submit(() -> {
            queued.countDown();
            return waiter.tryAcquire(Duration.ofMinutes(5));
        });
        assertThat(queued.await(10, TimeUnit.SECONDS)).isTrue();
        Await.until(SOON, "the waiter is queued", () -> raw.queue(name).size() == 2);
        interrupted.cancel(true);
        Await.until(SOON, "only the holder's node is left", () -> raw.queue(name).size() == 1);
        held.close();
        assertThat(raw.queue(name)).as("lock nodes after everyone left").isEmpty();
    }

    @Test
    void sessionExpiryOfTheHolderReportsTheLossAndHandsTheLockOn() throws Exception {
        String name = "expiry-" + System.nanoTime();
        CuratorFramework curator = CuratorFrameworkFactory.builder().connectString(server.connectString())
                .namespace(ZooKeeperLockClient.DEFAULT_NAMESPACE).sessionTimeoutMs(4000).connectionTimeoutMs(1000)
                .retryPolicy(new RetryNTimes(10, 100)).build();
        curator.start();
        toClose.add(curator);
        assertThat(curator.blockUntilConnected(20, TimeUnit.SECONDS)).isTrue();
        LockClient holderClient = ZooKeeperLockClient.builder().curator(curator).operationTimeout(Duration.ofSeconds(1))
                .lockOptions(LockOptions.builder().leaseTime(Duration.ofSeconds(4)).build()).build();
        toClose.add(holderClient);
        DistributedLock holder = holderClient.getLock(name);
        holder.lock();
        Lease held = holder.heldLease();
        CountDownLatch lost = new CountDownLatch(1);
        held.onLost(e -> lost.countDown());
        Future<Optional<Lease>> next = threads.submit(() -> client(server.connectString()).getLock(name).tryAcquire(SOON));
        Await.until(SOON, "the next waiter is queued", () -> raw.queue(name).size() == 2);

        ZooKeeperEnsemble.expireSession(curator.getZookeeperClient().getZooKeeper());

        assertThat(lost.await(SOON.toSeconds(), TimeUnit.SECONDS)).as("onLost fired").isTrue();
        assertThat(held.isValid()).isFalse();
        Optional<Lease> nextLease = next.get(60, TimeUnit.SECONDS);
        assertThat(nextLease).as("the next waiter got the lock").isPresent();
        assertThat(nextLease.get().fencingToken()).isGreaterThan(held.fencingToken());
        assertThatThrownBy(holder::unlock).isInstanceOf(LeaseLostException.class);
        assertThat(raw.queue(name)).hasSize(1);
        nextLease.get().close();
    }

    @Test
    void losingOneOfThreeEnsembleMembersKeepsLocksWorking() throws Exception {
        try (ZooKeeperEnsemble ensemble = ZooKeeperEnsemble.launch(3)) {
            String name = "ensemble-" + System.nanoTime();
            LockClient patient = ZooKeeperLockClient.builder().connectString(ensemble.connectString())
                    .sessionTimeout(Duration.ofSeconds(5)).connectionTimeout(Duration.ofSeconds(2))
                    .operationTimeout(Duration.ofSeconds(2)).waitForReconnect(true)
                    .lockOptions(LockOptions.builder().leaseTime(Duration.ofSeconds(5)).build()).build();
            toClose.add(patient);
            LockClient other = client(ensemble.connectString());
            Lease held = patient.getLock(name).acquire(SOON);

            ensemble.kill(0);

            Lease stillHeld = held;
            Await.until(SOON, "the holder's lease is valid after failing over", stillHeld::isValid);
            assertThat(Await.succeeds(SOON, "the other client can ask", () -> other.getLock(name).tryAcquire(Duration.ZERO)))
                    .as("the lock is still held across the member loss").isEmpty();
            long token = held.fencingToken();
            held.close();
            Lease next = Await.succeeds(SOON, "the other client acquires", () -> other.getLock(name).acquire(Duration.ofSeconds(5)));
            assertThat(next.fencingToken()).isGreaterThan(token);
            next.close();
        }
    }

    @Test
    void digestAuthenticatedLocksAreClosedToOtherIdentities() throws Exception {
        String name = "secured-" + System.nanoTime();
        LockClient owner = ZooKeeperLockClient.builder().connectString(server.connectString()).namespace("secured")
                .digest("app:secret").operationTimeout(Duration.ofSeconds(2)).build();
        toClose.add(owner);
        LockClient stranger = ZooKeeperLockClient.builder().connectString(server.connectString()).namespace("secured")
                .digest("intruder:guess").operationTimeout(Duration.ofSeconds(2)).build();
        toClose.add(stranger);
        try (Lease lease = owner.getLock(name).acquire(SOON)) {
            assertThat(lease.isValid()).isTrue();
            assertThatThrownBy(() -> stranger.getLock(name).forceUnlock())
                    .isInstanceOf(io.distlock.LockException.class).hasMessageContaining("NOAUTH");
            assertThat(owner.getLock(name).isLocked()).isTrue();
        }
    }

    @Test
    void badArgumentsAndAnUnreachableEnsembleGiveClearErrors() {
        assertThatThrownBy(() -> ZooKeeperLockClient.create(" ")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("connectString");
        assertThatThrownBy(() -> ZooKeeperLockClient.builder().namespace("a//b")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("namespace");
        assertThatThrownBy(() -> ZooKeeperLockClient.builder().sessionTimeout(Duration.ZERO)).hasMessageContaining("sessionTimeout");
        assertThatThrownBy(() -> ZooKeeperLockClient.builder().connectString("127.0.0.1:" + io.distlock.servers.FreePorts.next())
                .connectionTimeout(Duration.ofMillis(500)).build())
                .isInstanceOf(io.distlock.BackendUnavailableException.class).hasMessageContaining("cannot connect");
    }
}
