package io.distlock.etcd;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.DistributedLock;
import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.etcd.testing.EtcdClusterExtension;
import io.distlock.servers.Await;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The client's session lease under faults: keep-alives that are never answered, a session the client gives
 * up while etcd still keeps it, a lease revoked under a queued waiter. Waiters here poll only every 5
 * minutes, so whatever they do, they do because they were told.
 */
class EtcdSessionTest {
    private static final Duration SOON = Duration.ofSeconds(30);
    @RegisterExtension
    static final EtcdClusterExtension etcd = new EtcdClusterExtension();
    @RegisterExtension
    static final EtcdTestbed testbed = new EtcdTestbed(etcd);
    private final RpcFaults faults = new RpcFaults();
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @AfterEach
    void stopThreads() {
        threads.shutdownNow();
    }

    /** A lock client on a jetcd client the test built, with {@link #faults} on its calls. */
    private EtcdLockClient faultyClient(Duration sessionTtl) {
        Client jetcd = Client.builder().endpoints(etcd.target().split(",")).interceptor(faults).build();
        testbed.closeAfterTest(jetcd);
        EtcdLockClient client = EtcdLockClient.builder().client(jetcd).sessionTtl(sessionTtl).operationTimeout(Duration.ofSeconds(2))
                .fallbackPoll(Duration.ofMinutes(5)).build();
        testbed.closeAfterTest(client);
        return client;
    }

    private LockClient plainClient() {
        LockClient client = EtcdLockClient.builder().endpoints(etcd.target()).sessionTtl(EtcdClientFactory.SESSION_TTL)
                .operationTimeout(Duration.ofSeconds(2)).fallbackPoll(Duration.ofMinutes(5)).build();
        testbed.closeAfterTest(client);
        return client;
    }

    private Future<Optional<Lease>> waitFor(DistributedLock lock) {
        return threads.submit(() -> lock.tryAcquire(Duration.ofSeconds(90)));
    }

    /** Returns whether the second key of {@code name}'s queue is on {@code lease}. */
    private static boolean queuedSecondOn(String name, long lease) {
        List<KeyValue> queue = testbed.raw().queue(name);
        return queue.size() == 2 && queue.get(1).getLease() == lease;
    }

    @Test
    void aGrantReadAfterTheSessionWasGivenUpIsNotHandedOutTheWaiterJoinsAgainOnANewSession() throws Exception {
        String name = "grant-after-loss-" + System.nanoTime();
        Lease held = plainClient().getLock(name).acquire();
        EtcdLockClient client = faultyClient(Duration.ofSeconds(6));
        long given = client.sessionLease();
        Future<Optional<Lease>> waiter = waitFor(client.getLock(name));
        Await.until(SOON, "the waiter is queued on the session lease", () -> queuedSecondOn(name, given));

        // keep-alives reach etcd but no answer comes back, and the client's revoke never leaves: the client
        // gives its session up (no keep-alive confirmed within the TTL) while etcd still holds the waiter's key
        faults.silence(RpcFaults.KEEP_ALIVE, true);
        faults.drop(RpcFaults.REVOKE, true);
        Await.until(SOON, "the client gives its session up and tries to revoke it", () -> faults.started(RpcFaults.REVOKE) > 0);
        faults.silence(RpcFaults.KEEP_ALIVE, false);
        held.close(); // the turn of the waiter's old key comes now, if it is still there

        Optional<Lease> granted = waiter.get(SOON.toSeconds(), SECONDS);
        assertThat(granted).as("the waiter gets the lock").isPresent();
        Lease lease = granted.get();
        assertThat(lease.isValid()).as("the lease handed out is valid, not one lost with the session it queued in").isTrue();
        KeyValue key = testbed.raw().queue(name).get(0);
        assertThat(key.getLease()).as("the holder's key is on the client's new session lease")
                .isNotEqualTo(given).isEqualTo(client.sessionLease());
        assertThat(testbed.raw().ttl(key.getLease())).as("a live lease").isPositive();
        assertThat(lease.fencingToken()).isEqualTo(key.getCreateRevision()).isGreaterThan(held.fencingToken());
        lease.close();
    }

    @Test
    void leasesAreNotTrustedWhileTheSessionIsInDoubtAndAreAgainOnceAKeepAliveIsConfirmed() throws Exception {
        String name = "in-doubt-" + System.nanoTime();
        EtcdLockClient client = faultyClient(Duration.ofSeconds(9));
        long session = client.sessionLease();
        Lease lease = client.getLock(name).acquire();
        faults.silence(RpcFaults.KEEP_ALIVE, true); // the renewals' keep-alives too
        Await.until(SOON, "the lease is no longer trusted", () -> !lease.isValid());
        assertThat(client.sessionLease()).as("in doubt, not lost: no keep-alive was confirmed for a while, but the TTL has not run out")
                .isEqualTo(session);
        faults.silence(RpcFaults.KEEP_ALIVE, false);
        Await.until(SOON, "the lease is trusted again once a keep-alive is confirmed", lease::isValid);
        assertThat(client.sessionLease()).isEqualTo(session);
        lease.close();
    }

    @Test
    void aKeepAliveThatIsNeverAnsweredDoesNotStopTheSessionsRenewal() throws Exception {
        String name = "hung-keepalive-" + System.nanoTime();
        Lease held = plainClient().getLock(name).acquire();
        EtcdLockClient client = faultyClient(EtcdClientFactory.SESSION_TTL);
        long session = client.sessionLease();
        Future<Optional<Lease>> waiter = waitFor(client.getLock(name));
        Await.until(SOON, "the waiter is queued", () -> queuedSecondOn(name, session));

        faults.silenceNextCall(RpcFaults.KEEP_ALIVE); // one stream that stops answering
        long answered = faults.answered(RpcFaults.KEEP_ALIVE);
        // keep-alives go out a third of the TTL apart: five more answers span more than the TTL
        Await.until(SOON, "keep-alives are answered again after the one that never was",
                () -> faults.answered(RpcFaults.KEEP_ALIVE) >= answered + 5);
        assertThat(client.sessionLease()).as("the same session lives on").isEqualTo(session);
        assertThat(testbed.raw().ttl(session)).as("etcd keeps it").isPositive();
        assertThat(queuedSecondOn(name, session)).as("the waiter keeps its place in the queue").isTrue();
        assertThat(waiter.isDone()).isFalse();

        held.close();
        Lease lease = waiter.get(SOON.toSeconds(), SECONDS).orElseThrow();
        assertThat(lease.isValid()).isTrue();
        lease.close();
    }

    @Test
    void aWaiterWhoseSessionLeaseIsRevokedJoinsAgainOnAFreshLeaseNeverOnTheRevokedOne() throws Exception {
        String name = "revoked-waiter-" + System.nanoTime();
        Lease held = plainClient().getLock(name).acquire();
        EtcdLockClient client = (EtcdLockClient) plainClient();
        long revoked = client.sessionLease();
        Future<Optional<Lease>> waiter = waitFor(client.getLock(name));
        Await.until(SOON, "the waiter is queued", () -> queuedSecondOn(name, revoked));

        testbed.raw().revoke(revoked); // etcd deletes the waiter's key with the lease
        Await.until(SOON, "the waiter is queued again, on the client's fresh session lease",
                () -> client.sessionLease() != 0 && client.sessionLease() != revoked && queuedSecondOn(name, client.sessionLease()));
        assertThat(testbed.raw().ttl(client.sessionLease())).as("a live lease").isPositive();
        assertThat(waiter.isDone()).as("still waiting: the lock is held").isFalse();

        held.close();
        Lease lease = waiter.get(SOON.toSeconds(), SECONDS).orElseThrow();
        assertThat(lease.isValid()).isTrue();
        KeyValue key = testbed.raw().queue(name).get(0);
        assertThat(key.getLease()).isNotEqualTo(revoked).isEqualTo(client.sessionLease());
        assertThat(lease.fencingToken()).isEqualTo(key.getCreateRevision()).isGreaterThan(held.fencingToken());
        lease.close();
    }

    @Test
    void anAcquireThatFindsItsSessionLeaseRevokedHoldsAValidLeaseOnAFreshOne() throws Exception {
        String name = "revoked-join-" + System.nanoTime();
        EtcdLockClient client = faultyClient(Duration.ofSeconds(30));
        faults.drop(RpcFaults.KEEP_ALIVE, true); // so the client first hears of the revoke from the join itself
        long revoked = client.sessionLease();
        testbed.raw().revoke(revoked);
        try (Lease lease = client.getLock(name).acquire(Duration.ofSeconds(10))) {
            assertThat(lease.isValid()).as("the lease handed out is valid, not one lost with the revoked session").isTrue();
            KeyValue key = testbed.raw().queue(name).get(0);
            assertThat(key.getLease()).as("the key is on a fresh session lease").isNotEqualTo(revoked).isEqualTo(client.sessionLease());
            assertThat(testbed.raw().ttl(key.getLease())).isPositive();
        }
        assertThat(testbed.raw().queue(name)).isEmpty();
    }
}
