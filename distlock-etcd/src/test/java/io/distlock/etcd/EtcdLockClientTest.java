package io.distlock.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.BackendUnavailableException;
import io.distlock.DistributedLock;
import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockOptions;
import io.distlock.etcd.testing.EtcdCluster;
import io.distlock.etcd.testing.EtcdClusterExtension;
import io.distlock.servers.Await;
import io.distlock.servers.FreePorts;
import io.distlock.spi.LockEngine;
import io.distlock.testkit.HolderProcess;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import java.nio.charset.StandardCharsets;
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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** What the etcd backend adds to the contract: queue order, no left-over keys, the session, clear errors. */
class EtcdLockClientTest {
    private static final Duration SOON = Duration.ofSeconds(30);
    @RegisterExtension
    static final EtcdClusterExtension etcd = new EtcdClusterExtension();
    @RegisterExtension
    static final EtcdTestbed testbed = new EtcdTestbed(etcd);
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @AfterEach
    void stopThreads() {
        threads.shutdownNow();
    }

    private LockClient client() {
        LockClient client = new EtcdClientFactory().create(etcd.target());
        testbed.closeAfterTest(client);
        return client;
    }

    @Test
    void waitersAcquireInArrivalOrderAcrossClients() throws Exception {
        String name = "fair-" + System.nanoTime();
        Lease first = client().getLock(name).acquire();
        List<Integer> order = new CopyOnWriteArrayList<>();
        List<Future<?>> waiters = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            int arrival = i;
            DistributedLock lock = client().getLock(name);
            waiters.add(threads.submit(() -> {
                try (Lease lease = lock.acquire(SOON)) {
                    order.add(arrival);
                }
                return null;
            }));
            int queued = i + 2;
            Await.until(SOON, "waiter " + i + " is queued", () -> testbed.raw().queue(name).size() == queued);
        }
        first.close();
        for (Future<?> waiter : waiters) {
            waiter.get(60, TimeUnit.SECONDS);
        }
        assertThat(order).containsExactly(0, 1, 2, 3, 4);
        assertThat(testbed.raw().queue(name)).isEmpty();
    }

    @Test
    void timeoutsAndInterruptsLeaveNoKeysBehind() throws Exception {
        String name = "leftovers/" + System.nanoTime();
        DistributedLock holder = client().getLock(name);
        DistributedLock waiter = client().getLock(name);
        Lease held = holder.acquire();
        assertThat(waiter.tryAcquire(Duration.ofMillis(200))).isEmpty();
        assertThat(testbed.raw().queue(name)).as("the waiter's key is gone when tryAcquire returns").hasSize(1);
        assertThat(waiter.tryLock()).isFalse();
        assertThat(testbed.raw().queue(name)).as("the waiter's key is gone when tryLock returns").hasSize(1);

        CountDownLatch queued = new CountDownLatch(1);
        Future<Object> interrupted = threads.submit(() -> {
            queued.countDown();
            return waiter.tryAcquire(Duration.ofMinutes(5));
        });
        assertThat(queued.await(10, TimeUnit.SECONDS)).isTrue();
        Await.until(SOON, "the waiter is queued", () -> testbed.raw().queue(name).size() == 2);
        interrupted.cancel(true);
        Await.until(SOON, "only the holder's key is left", () -> testbed.raw().queue(name).size() == 1);
        held.close();
        assertThat(testbed.raw().queue(name)).as("queue keys after everyone left").isEmpty();
    }

    @Test
    void theKeyNamesTheSessionLeaseAndIsAttachedToIt() throws Exception {
        String name = "layout-" + System.nanoTime();
        EtcdLockClient client = (EtcdLockClient) client();
        try (Lease lease = client.getLock(name).acquire()) {
            var key = testbed.raw().queue(name).get(0);
            assertThat(RawEtcd.keyText(key)).startsWith("distlock/" + name + "/" + Long.toHexString(client.sessionLease()) + "-");
            assertThat(key.getLease()).isEqualTo(client.sessionLease());
            assertThat(lease.fencingToken()).as("the token is the key's create revision").isEqualTo(key.getCreateRevision());
        }
    }

    /**
     * Fair locks live under {@code distlock/~fair/}; '~' never starts an encoded name, so a plain lock named like the
     * marker (or like a fair lock's whole key path) has keys of its own: were the marker a plain segment ("fair"), the
     * plain lock "fair" would have every fair lock's keys in its queue and never be free while one is held.
     */
    @Test
    void fairLocksHaveKeysOfTheirOwnThatNoPlainLockNameReaches() throws Exception {
        String name = "fair-layout-" + System.nanoTime();
        EtcdLockClient client = (EtcdLockClient) client();
        LockClient other = client();
        try (Lease fair = client.getFairLock(name).acquire()) {
            var key = testbed.raw().fairQueue(name).get(0);
            assertThat(RawEtcd.keyText(key)).startsWith("distlock/~fair/" + name + "/" + Long.toHexString(client.sessionLease()) + "-");
            assertThat(fair.fencingToken()).as("the token is the key's create revision").isEqualTo(key.getCreateRevision());
            for (String plain : List.of("~fair", "fair", "~fair/" + name)) {
                Optional<Lease> lease = other.getLock(plain).tryAcquire(Duration.ZERO);
                assertThat(lease).as("the plain lock '%s' while the fair lock '%s' is held", plain, name).isPresent();
                lease.get().close();
            }
            assertThat(testbed.raw().queue(name)).as("plain keys of '%s'", name).isEmpty();
        }
        assertThatThrownBy(() -> new LockKeys("distlock").kind("fair")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'~'");
    }

    @Test
    void aLockClientOnTheApplicationsOwnJetcdClientLocksAndLeavesThatClientOpen() throws Exception {
        String name = "own-jetcd-" + System.nanoTime();
        ByteSequence probe = ByteSequence.from("app/" + name, StandardCharsets.UTF_8);
        try (Client jetcd = Client.builder().endpoints(etcd.target().split(",")).build()) {
            long session;
            try (EtcdLockClient locks = EtcdLockClient.builder().client(jetcd).sessionTtl(EtcdClientFactory.SESSION_TTL).build();
                    EtcdLockClient second = EtcdLockClient.builder().client(jetcd).sessionTtl(EtcdClientFactory.SESSION_TTL).build()) {
                session = locks.sessionLease();
                assertThat(second.sessionLease()).as("each lock client has its own session lease").isNotZero().isNotEqualTo(session);
                Lease lease = locks.getLock(name).acquire(Duration.ofSeconds(5));
                var key = testbed.raw().queue(name).get(0);
                assertThat(key.getLease()).isEqualTo(session);
                assertThat(lease.fencingToken()).isEqualTo(key.getCreateRevision());
                assertThat(second.getLock(name).tryAcquire(Duration.ofMillis(300))).as("excluded on the same jetcd client").isEmpty();
                assertThat(client().getLock(name).tryAcquire(Duration.ofMillis(300))).as("and on another connection").isEmpty();
                lease.close();
                try (Lease next = second.getLock(name).acquire(Duration.ofSeconds(5))) {
                    assertThat(next.fencingToken()).isGreaterThan(lease.fencingToken());
                }
            }
            assertThat(testbed.raw().queue(name)).isEmpty();
            assertThat(testbed.raw().ttl(session)).as("closing the lock client revoked its session lease").isEqualTo(-1);
            jetcd.getKVClient().put(probe, probe).get(10, TimeUnit.SECONDS);
            assertThat(jetcd.getKVClient().get(probe).get(10, TimeUnit.SECONDS).getCount())
                    .as("the application's jetcd client is still open and works").isEqualTo(1);
        }
    }

    /**
     * Issue 29, found by the state validation after each contract test: a lease lost to a force unlock (its key deleted
     * by someone else) left its queue entry in the client for good, so that every lost lease grew the client's memory.
     */
    @Test
    void aLeaseLostToAForceUnlockLeavesNothingBehindInTheClient() throws Exception {
        String name = "lost-" + System.nanoTime();
        LockClient holderClient = client();
        Lease held = holderClient.getLock(name, LockOptions.builder().leaseTime(Duration.ofSeconds(2)).build()).acquire();
        CountDownLatch lost = new CountDownLatch(1);
        held.onLost(e -> lost.countDown());
        assertThat(client().getLock(name).forceUnlock()).isTrue();
        assertThat(lost.await(SOON.toSeconds(), TimeUnit.SECONDS)).as("the holder was told at its next renewal").isTrue();
        held.close();
        Await.until(SOON, "the holder's client keeps nothing for the lost lease", () -> LockEngine.state(holderClient, true).orElseThrow().isIdle());
        assertThat(LockEngine.state(holderClient, true).orElseThrow().backend()).containsEntry("queue entries", 0);
    }

    @Test
    void aPausedHolderProcessLosesItsKeyWithItsSessionAndTheWaiterGetsALargerToken() throws Exception {
        String name = "paused-holder-" + System.nanoTime();
        try (HolderProcess holder = HolderProcess.start(EtcdClientFactory.class, etcd.target(), name, EtcdClientFactory.SESSION_TTL)) {
            long held = holder.awaitHeldToken(SOON);
            DistributedLock waiter = client().getLock(name);
            assertThat(waiter.tryAcquire(Duration.ofMillis(300))).as("the holder holds it while it runs").isEmpty();
            holder.pause();
            try {
                // no keep-alive from the frozen holder: etcd expires its session lease, and its key with it
                Optional<Lease> next = waiter.tryAcquire(SOON);
                assertThat(next).as("the waiter got the lock of the paused holder").isPresent();
                assertThat(next.get().fencingToken()).isGreaterThan(held);
                next.get().close();
            } finally {
                holder.resume();
            }
        }
    }

    @Test
    void aReleaseThatIsNotAnsweredIsRetriedSoTheKeyDoesNotOutliveIt() throws Exception {
        String name = "unanswered-release-" + System.nanoTime();
        LockClient client = client();
        Lease held = client.getLock(name).acquire();
        etcd.control().pause();
        try {
            // the release times out and says so; the session outlives the outage
            assertThatThrownBy(held::close).isInstanceOf(BackendUnavailableException.class);
        } finally {
            etcd.control().resume();
        }
        Await.until(SOON, "the unanswered release's key is deleted in the background", () -> testbed.raw().queue(name).isEmpty());
        assertThat(((EtcdLockClient) client).sessionLease()).as("the same session lives on").isNotZero();
        try (Lease next = client().getLock(name).acquire(Duration.ofSeconds(5))) {
            assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
        }
    }

    @Test
    void theLeaseNeverOutlastsTheSessionTtl() {
        String target = etcd.target();
        assertThatThrownBy(() -> EtcdLockClient.builder().endpoints(target).sessionTtl(Duration.ofSeconds(3))
                .leaseTime(Duration.ofSeconds(10)).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("session TTL");
        LockClient client = EtcdLockClient.builder().endpoints(target).sessionTtl(Duration.ofSeconds(3)).build();
        testbed.closeAfterTest(client);
        assertThatThrownBy(() -> client.getLock("x", LockOptions.builder().leaseTime(Duration.ofSeconds(4)).build()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("leaseTime");
        assertThat(client.getLock("x").getClass()).isNotNull(); // the default lease is the granted TTL: accepted
    }

    @Test
    void badArgumentsAndAnUnreachableServerGiveClearErrors() {
        assertThatThrownBy(() -> EtcdLockClient.create(" ")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("endpoints");
        assertThatThrownBy(() -> EtcdLockClient.create("127.0.0.1:2379")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("http://host:port");
        assertThatThrownBy(() -> EtcdLockClient.builder().sessionTtl(Duration.ofMillis(1500)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("sessionTtl");
        assertThatThrownBy(() -> EtcdLockClient.builder().namespace("a b")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("namespace");
        assertThatThrownBy(() -> EtcdLockClient.builder().build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("endpoints");
        String nobody = "http://127.0.0.1:" + FreePorts.next();
        assertThatThrownBy(() -> EtcdLockClient.builder().endpoints(nobody).operationTimeout(Duration.ofSeconds(1)).build())
                .isInstanceOf(BackendUnavailableException.class).hasMessageContaining(nobody);
    }

    @Test
    void theWatchdogRenewsManyLeasesInFewCalls() throws Exception {
        int locks = 300;
        Duration ttl = Duration.ofSeconds(2);
        LockClient client = testbed.closeAfterTest(EtcdLockClient.builder().endpoints(etcd.target()).sessionTtl(ttl).build());
        List<Lease> leases = new ArrayList<>();
        List<String> names = new ArrayList<>();
        for (int i = 0; i < locks; i++) {
            names.add("batch-" + i + "-" + System.nanoTime());
            leases.add(client.getLock(names.get(i)).acquire(SOON));
        }
        long before = etcd.cluster().requestsReceived();
        long start = System.nanoTime();
        Await.until(SOON, "three lease times have passed", () -> System.nanoTime() - start > ttl.multipliedBy(3).toNanos());
        long calls = etcd.cluster().requestsReceived() - before;
        for (int i = 0; i < locks; i++) {
            assertThat(leases.get(i).isValid()).as("lease %d still valid", i).isTrue();
            assertThat(testbed.raw().queue(names.get(i))).as("lock %d still held", i).hasSize(1);
        }
        // a keep-alive and a read per lock per interval would be about 2 x 9 x 300 = 5,400 messages; batches of up to
        // 128 keys with one keep-alive each need a few dozen (the session's own keep-alives included)
        assertThat(calls).as("messages the server received while the leases were renewed").isLessThan(locks);
        leases.forEach(Lease::close);
    }

    @Test
    void aBatchedRenewalTellsEachLockWhatItFound() throws Exception {
        LockClient client = testbed.closeAfterTest(EtcdLockClient.builder().endpoints(etcd.target()).sessionTtl(Duration.ofSeconds(2)).build());
        List<Lease> leases = new ArrayList<>();
        List<CountDownLatch> lost = new ArrayList<>();
        String prefix = "told-" + System.nanoTime() + "-";
        for (int i = 0; i < 20; i++) { // acquired within a few ms: renewed in the same batches
            Lease lease = client.getLock(prefix + i).acquire(SOON);
            CountDownLatch loss = new CountDownLatch(1);
            lease.onLost(e -> loss.countDown());
            leases.add(lease);
            lost.add(loss);
        }
        testbed.raw().delete(testbed.raw().queue(prefix + 7).get(0)); // an operator deletes one lock's key
        assertThat(lost.get(7).await(30, TimeUnit.SECONDS)).as("the lock whose key is gone is told").isTrue();
        long start = System.nanoTime();
        Await.until(SOON, "two more lease times have passed", () -> System.nanoTime() - start > Duration.ofSeconds(4).toNanos());
        for (int i = 0; i < leases.size(); i++) {
            if (i != 7) {
                assertThat(lost.get(i).getCount()).as("lock %d is not lost", i).isEqualTo(1);
                assertThat(leases.get(i).isValid()).as("lock %d still valid", i).isTrue();
                assertThat(testbed.raw().queue(prefix + i)).as("lock %d still held", i).hasSize(1);
            }
        }
        assertThat(leases.get(7).isValid()).isFalse();
        leases.forEach(Lease::close);
    }

    @Test
    void renewalsGoOnWhenTheServerAllowsFewerOperationsPerTransaction() throws Exception {
        try (EtcdCluster small = EtcdCluster.launch(1, false, List.of("--max-txn-ops", "4"));
                LockClient client = EtcdLockClient.builder().endpoints(small.endpoints()).sessionTtl(Duration.ofSeconds(2)).build()) {
            List<Lease> leases = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                leases.add(client.getLock("few-ops-" + i).acquire(SOON));
            }
            long start = System.nanoTime();
            Await.until(SOON, "three lease times have passed", () -> System.nanoTime() - start > Duration.ofSeconds(6).toNanos());
            for (int i = 0; i < leases.size(); i++) {
                assertThat(leases.get(i).isValid()).as("lease %d still valid: reads refused as too large were made smaller", i).isTrue();
            }
            leases.forEach(Lease::close);
        }
    }

    @Test
    void renewalsGoOnWhenTheServerTakesSmallerRequests() throws Exception {
        // 200 names of 1,024 characters that URL-encode to 9 characters each, acquired at once: a renewal read of 128 of
        // them is 1.2 MB of keys, past the 612 kB this server takes in one message (--max-request-bytes and 512 KiB of
        // gRPC room)
        String longest = "\u9396".repeat(1020);
        Duration ttl = Duration.ofSeconds(6);
        try (EtcdCluster small = EtcdCluster.launch(1, false, List.of("--max-request-bytes", "100000"));
                LockClient client = EtcdLockClient.builder().endpoints(small.endpoints()).sessionTtl(ttl).build()) {
            List<Future<Lease>> acquired = new ArrayList<>();
            ExecutorService sixteen = Executors.newFixedThreadPool(16); // at once, so that their renewals come due together
            try {
                for (int i = 0; i < 200; i++) {
                    DistributedLock lock = client.getLock(longest + String.format("%04d", i));
                    acquired.add(sixteen.submit(() -> lock.acquire(SOON)));
                }
            } finally {
                sixteen.shutdown();
            }
            List<Lease> leases = new ArrayList<>();
            for (Future<Lease> lease : acquired) {
                leases.add(lease.get(60, TimeUnit.SECONDS));
            }
            long start = System.nanoTime();
            Await.until(SOON, "two lease times have passed", () -> System.nanoTime() - start > ttl.multipliedBy(2).toNanos());
            for (int i = 0; i < leases.size(); i++) {
                assertThat(leases.get(i).isValid()).as("lease %d still valid: reads refused as too large were made smaller", i).isTrue();
            }
            leases.forEach(Lease::close);
        }
    }
}
