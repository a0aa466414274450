package io.distlock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.DistributedLock;
import io.distlock.Lease;
import io.distlock.LeaseLostException;
import io.distlock.LockClient;
import io.distlock.LockOptions;
import io.distlock.servers.Await;
import io.distlock.zookeeper.testing.ZooKeeperEnsemble;
import io.distlock.zookeeper.testing.ZooKeeperServer;
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
        assertThat(raw.queue(name)).as("the waiter's node is gone when tryAcquire returns").hasSize(1);
        assertThat(waiter.tryLock()).isFalse();
        assertThat(raw.queue(name)).as("the waiter's node is gone when tryLock returns").hasSize(1);

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
    void losingTheHoldersEnsembleMemberSuspendsTheLeaseAndKeepsTheLock() throws Exception {
        try (ZooKeeperEnsemble ensemble = ZooKeeperEnsemble.launch(3)) {
            String name = "ensemble-" + System.nanoTime();
            ZooKeeperLockClient patient = ZooKeeperLockClient.builder().connectString(ensemble.connectString())
                    .sessionTimeout(Duration.ofSeconds(5)).connectionTimeout(Duration.ofSeconds(2))
                    .operationTimeout(Duration.ofSeconds(2)).waitForReconnect(true)
                    .lockOptions(LockOptions.builder().leaseTime(Duration.ofSeconds(5)).build()).build();
            toClose.add(patient);
            LockClient other = client(ensemble.connectString());
            Lease held = patient.getLock(name).acquire(SOON);
            int member = ensemble.memberOnPort(connectedPort(patient));
            assertThat(member).as("the holder's member, from %s", patient.curator().getZookeeperClient().getZooKeeper()).isNotNegative();

            ensemble.kill(member); // the holder's own connection drops

            // Spin, do not sleep between checks: the client may reconnect to another member within a few
            // milliseconds (ZooKeeper waits a random 0-1000 ms before it tries the next member).
            spinUntil(SOON, "the holder's lease is untrusted while its connection is in doubt", () -> !held.isValid());
            Await.until(SOON, "the holder's lease is valid again after reconnecting to another member", held::isValid);
            assertThat(Await.succeeds(SOON, "the other client can ask", () -> other.getLock(name).tryAcquire(Duration.ZERO)))
                    .as("nobody else got the lock across the member loss").isEmpty();
            long token = held.fencingToken();
            held.close();
            Lease next = Await.succeeds(SOON, "the other client acquires", () -> other.getLock(name).acquire(Duration.ofSeconds(5)));
            assertThat(next.fencingToken()).isGreaterThan(token);
            next.close();
        }
    }

    /** Checks {@code condition} without pausing between checks until it holds; fails after {@code timeout}. */
    private static void spinUntil(Duration timeout, String description, java.util.function.BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out after " + timeout + " waiting until " + description);
            }
            Thread.onSpinWait();
        }
    }

    /** Returns the server port a client is connected to, from its connection's description. */
    private static int connectedPort(ZooKeeperLockClient client) throws Exception {
        String description = client.curator().getZookeeperClient().getZooKeeper().toString();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("remoteserver:\\S*?:(\\d+)").matcher(description);
        return m.find() ? Integer.parseInt(m.group(1)) : -1;
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
    void theLeaseNeverOutlastsTheSessionTheServerNegotiated() throws Exception {
        // the test server's tick is 250 ms, so it grants sessions of 0.5 to 5 s whatever a client asks for
        LockClient asksForFifteen = ZooKeeperLockClient.builder().connectString(server.connectString()).build();
        toClose.add(asksForFifteen);
        try (Lease lease = asksForFifteen.getLock("negotiated-" + System.nanoTime()).acquire()) {
            assertThat(lease.remaining()).as("default lease, 15 s session asked, 5 s negotiated").isLessThanOrEqualTo(Duration.ofSeconds(5));
        }
        LockClient twoSeconds = ZooKeeperLockClient.builder().connectString(server.connectString()).sessionTimeout(Duration.ofSeconds(2)).build();
        toClose.add(twoSeconds);
        try (Lease lease = twoSeconds.getLock("short-session-" + System.nanoTime()).acquire()) {
            assertThat(lease.remaining()).isLessThanOrEqualTo(Duration.ofSeconds(2)).isPositive();
        }
        assertThatThrownBy(() -> twoSeconds.getLock("x", LockOptions.builder().leaseTime(Duration.ofSeconds(15)).build()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("leaseTime PT15S").hasMessageContaining("PT2S");
        assertThatThrownBy(() -> ZooKeeperLockClient.builder().connectString(server.connectString()).sessionTimeout(Duration.ofSeconds(2))
                .leaseTime(Duration.ofSeconds(15)).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("session timeout");
    }

    @Test
    void ioThreadsStayBoundedWhileCallsHangOnAStoppedServer() throws Exception {
        try (ZooKeeperServer lonely = ZooKeeperServer.launch()) {
            LockClient client = ZooKeeperLockClient.builder().connectString(lonely.connectString()).sessionTimeout(Duration.ofSeconds(5))
                    .operationTimeout(Duration.ofMillis(500)).waitForReconnect(true).build();
            toClose.add(client);
            lonely.stop();
            List<Future<?>> calls = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                DistributedLock lock = client.getLock("hang-" + i);
                calls.add(threads.submit(() -> {
                    try {
                        lock.isLocked();
                    } catch (io.distlock.BackendUnavailableException expected) {
                        // the call times out; its blocking Curator call may still run on an IO thread
                    }
                    return null;
                }));
            }
            for (Future<?> call : calls) {
                call.get(60, TimeUnit.SECONDS);
            }
            long ioThreads = Thread.getAllStackTraces().keySet().stream()
                    .filter(t -> t.getName().startsWith("distlock-zookeeper-io-") && t.isAlive()).count();
            assertThat(ioThreads).as("IO threads after 40 hanging calls").isLessThanOrEqualTo(ZooKeeperLockBackend.IO_THREADS);
        }
    }

    @Test
    void aWaiterKeepsOneWatchOnItsPredecessorHoweverOftenItAsks() throws Exception {
        String name = "one-watch-" + System.nanoTime();
        CuratorFramework curator = startedCurator(server.connectString());
        ZooKeeperLockBackend backend = new ZooKeeperLockBackend(curator, false, server.connectString(), Duration.ofSeconds(2), true);
        try {
            var holder = backend.enqueue(name, "holder", Duration.ofSeconds(4)).get(10, TimeUnit.SECONDS);
            assertThat(holder.checkTurn(() -> { }).get(10, TimeUnit.SECONDS).granted()).isTrue();
            var waiter = backend.enqueue(name, "waiter", Duration.ofSeconds(4)).get(10, TimeUnit.SECONDS);
            List<java.util.concurrent.atomic.AtomicInteger> calls = new ArrayList<>();
            for (int poll = 0; poll < 20; poll++) { // what 20 fallback polls do
                java.util.concurrent.atomic.AtomicInteger called = new java.util.concurrent.atomic.AtomicInteger();
                calls.add(called);
                assertThat(waiter.checkTurn(called::incrementAndGet).get(10, TimeUnit.SECONDS).granted()).isFalse();
            }
            holder.leave().get(10, TimeUnit.SECONDS);
            Await.until(SOON, "the waiter is told its turn came", () -> calls.get(19).get() == 1);
            assertThat(calls.subList(0, 19)).as("callbacks of earlier polls (a watch each, before)").allMatch(c -> c.get() == 0);
            assertThat(waiter.checkTurn(() -> { }).get(10, TimeUnit.SECONDS).granted()).isTrue();
            assertThat(((QueueNode) waiter).isWatching()).as("no watch is left once the turn came").isFalse();
            waiter.leave().get(10, TimeUnit.SECONDS);
        } finally {
            backend.close();
            curator.close();
        }
    }

    @Test
    void closingAClientOnTheApplicationsCuratorLeavesNoNodeAndNoListenerBehind() throws Exception {
        String name = "app-curator-" + System.nanoTime();
        CuratorFramework curator = startedCurator(server.connectString());
        toClose.add(curator);
        int listenersBefore = listeners(curator);
        Lease held = client(server.connectString()).getLock(name).acquire();
        LockClient onAppCurator = ZooKeeperLockClient.builder().curator(curator).operationTimeout(Duration.ofSeconds(2))
                .leaseTime(Duration.ofSeconds(4)).build();
        Future<Object> waiting = threads.submit(() -> onAppCurator.getLock(name).tryAcquire(Duration.ofMinutes(5)));
        Await.until(SOON, "the waiter is queued", () -> raw.queue(name).size() == 2);

        onAppCurator.close();

        Await.until(SOON, "the closed client's node is gone while the application's session lives on", () -> raw.queue(name).size() == 1);
        assertThat(listeners(curator)).as("connection-state listeners on the application's Curator").isEqualTo(listenersBefore);
        assertThatThrownBy(() -> waiting.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(IllegalStateException.class);
        held.close();
    }

    private static int listeners(CuratorFramework curator) {
        return ((org.apache.curator.framework.listen.StandardListenerManager<?>) curator.getConnectionStateListenable()).size();
    }

    private static CuratorFramework startedCurator(String connectString) throws InterruptedException {
        CuratorFramework curator = CuratorFrameworkFactory.builder().connectString(connectString)
                .namespace(ZooKeeperLockClient.DEFAULT_NAMESPACE).sessionTimeoutMs(4000).connectionTimeoutMs(1000)
                .retryPolicy(new RetryNTimes(10, 100)).build();
        curator.start();
        assertThat(curator.blockUntilConnected(20, TimeUnit.SECONDS)).isTrue();
        return curator;
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

    @Test
    void theWatchdogRenewsManyLeasesInFewRequests() throws Exception {
        int locks = 300;
        Duration leaseTime = Duration.ofMillis(1200);
        LockClient client = client(server.connectString());
        List<Lease> leases = new ArrayList<>();
        List<String> names = new ArrayList<>();
        for (int i = 0; i < locks; i++) {
            names.add("batch-" + i + "-" + System.nanoTime());
            leases.add(client.getLock(names.get(i), LockOptions.builder().leaseTime(leaseTime).build()).acquire(SOON));
        }
        long before = server.packetsReceived();
        long start = System.nanoTime();
        Await.until(SOON, "three lease times have passed", () -> System.nanoTime() - start > leaseTime.multipliedBy(3).toNanos());
        long packets = server.packetsReceived() - before;
        for (int i = 0; i < locks; i++) {
            assertThat(leases.get(i).isValid()).as("lease %d still valid", i).isTrue();
            assertThat(raw.queue(names.get(i))).as("lock %d still held", i).hasSize(1);
        }
        // one existence check per lock per interval would be about 9 x 300 = 2,700 requests; multi-reads of up to 500
        // nodes need a few dozen (pings included)
        assertThat(packets).as("requests the server received while the leases were renewed").isLessThan(locks);
        leases.forEach(Lease::close);
    }

    @Test
    void aBatchedRenewalTellsEachLockWhatItFound() throws Exception {
        LockClient client = client(server.connectString());
        LockOptions shortLease = LockOptions.builder().leaseTime(Duration.ofMillis(1200)).build();
        List<Lease> leases = new ArrayList<>();
        List<CountDownLatch> lost = new ArrayList<>();
        String prefix = "told-" + System.nanoTime() + "-";
        for (int i = 0; i < 20; i++) { // acquired within a few ms: renewed in the same batches
            Lease lease = client.getLock(prefix + i, shortLease).acquire(SOON);
            CountDownLatch loss = new CountDownLatch(1);
            lease.onLost(e -> loss.countDown());
            leases.add(lease);
            lost.add(loss);
        }
        raw.delete("", prefix + 7, raw.queue(prefix + 7).get(0)); // an operator deletes one lock's node
        assertThat(lost.get(7).await(30, TimeUnit.SECONDS)).as("the lock whose node is gone is told").isTrue();
        long start = System.nanoTime();
        Await.until(SOON, "two more lease times have passed", () -> System.nanoTime() - start > Duration.ofMillis(2400).toNanos());
        for (int i = 0; i < leases.size(); i++) {
            if (i != 7) {
                assertThat(lost.get(i).getCount()).as("lock %d is not lost", i).isEqualTo(1);
                assertThat(leases.get(i).isValid()).as("lock %d still valid", i).isTrue();
                assertThat(raw.queue(prefix + i)).as("lock %d still held", i).hasSize(1);
            }
        }
        assertThat(leases.get(7).isValid()).isFalse();
        leases.forEach(Lease::close);
    }

    @Test
    void renewalsOfManyLocksWithTheLongestNamesStayWithinTheServersPacketLimit() throws Exception {
        // 300 names of 1,024 characters that URL-encode to 9 characters each: 2.8 MB of paths, past the 1 MiB a server
        // takes in one packet (jute.maxbuffer); the renewals' multi-reads are split
        String longest = "\u9396".repeat(1020);
        LockClient client = client(server.connectString());
        LockOptions shortLease = LockOptions.builder().leaseTime(Duration.ofMillis(1200)).build();
        List<Lease> leases = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            leases.add(client.getLock(longest + String.format("%04d", i), shortLease).acquire(SOON));
        }
        long start = System.nanoTime();
        Await.until(SOON, "three lease times have passed", () -> System.nanoTime() - start > Duration.ofMillis(3600).toNanos());
        for (int i = 0; i < leases.size(); i++) {
            assertThat(leases.get(i).isValid()).as("lease %d still valid", i).isTrue();
        }
        leases.forEach(Lease::close);
    }
}
