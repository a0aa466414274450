package io.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.BackendUnavailableException;
import io.distlock.Lease;
import io.distlock.LeaseLostException;
import io.distlock.LeaseLostException.Reason;
import io.distlock.LockClient;
import io.distlock.LockOptions;
import io.distlock.redis.testing.RedisServer;
import io.distlock.redis.testing.Resp;
import io.distlock.servers.Await;
import io.distlock.servers.TcpProxy;
import io.distlock.spi.AcquireResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** RedLock over five independent redis-server processes. */
class RedLockTest {
    private static final String KEY = RedisKeys.defaults().lockKey("orders");
    private final List<RedisServer> nodes = new ArrayList<>();

    @BeforeEach
    void startNodes() {
        for (int i = 0; i < 5; i++) {
            nodes.add(RedisServer.launch());
        }
    }

    @AfterEach
    void stopNodes() {
        nodes.forEach(RedisServer::close);
    }

    /** A backend per node, each reached through its own proxy (to delay one node's answers). */
    private final class ProxiedNodes implements AutoCloseable {
        final List<TcpProxy> proxies = new ArrayList<>();
        final List<RedisLockBackend> backends = new ArrayList<>();

        ProxiedNodes() {
            for (RedisServer node : nodes) {
                TcpProxy proxy = TcpProxy.to(node.port());
                proxies.add(proxy);
                backends.add(RedisLockClient.builder().uri("redis://127.0.0.1:" + proxy.port()).openBackend());
            }
        }

        @Override
        public void close() {
            backends.forEach(RedisLockBackend::close);
            proxies.forEach(TcpProxy::close);
        }
    }

    /** Wraps backends that are already connected as RedLock nodes. */
    private static List<RedLockNode> connected(List<RedisLockBackend> backends) {
        return backends.stream().map(RedLockNode::connected).toList();
    }

    /** A client whose leases (2 min) far outlast every wait of these tests: a grant that is gone was released. */
    private LockClient client() {
        return client(Duration.ofMinutes(2));
    }

    /** A client with a node timeout as generous as the lease allows (at most 250 ms), for a loaded test machine. */
    private LockClient client(Duration leaseTime) {
        Duration nodeTimeout = leaseTime.dividedBy(10).compareTo(Duration.ofMillis(250)) < 0 ? leaseTime.dividedBy(10) : Duration.ofMillis(250);
        return RedLockClient.builder().uris(nodes.stream().map(RedisServer::uri).toList()).leaseTime(leaseTime)
                .nodeTimeout(nodeTimeout).operationTimeout(Duration.ofSeconds(1)).connectTimeout(Duration.ofSeconds(1)).build();
    }

    /**
     * Issue 29, found by the state validation after each contract test: a lease lost on a majority of nodes (force
     * unlocked there) left its winning attempt's id in the client for good, so that every lost lease grew its memory.
     */
    @Test
    void aLeaseLostOnAMajorityLeavesNothingBehindInTheClient() throws Exception {
        try (LockClient holder = client(Duration.ofSeconds(2)); LockClient other = client()) {
            Lease held = holder.getLock("orders").acquire();
            java.util.concurrent.CountDownLatch lost = new java.util.concurrent.CountDownLatch(1);
            held.onLost(e -> lost.countDown());
            assertThat(other.getLock("orders").forceUnlock()).isTrue();
            assertThat(lost.await(30, java.util.concurrent.TimeUnit.SECONDS)).as("the holder was told at its next renewal").isTrue();
            held.close();
            Await.until(Duration.ofSeconds(30), "the holder's client keeps nothing for the lost lease",
                    () -> io.distlock.spi.LockEngine.state(holder, true).orElseThrow().isIdle());
            assertThat(io.distlock.spi.LockEngine.state(holder, true).orElseThrow().backend()).containsEntry("held names", 0);
        }
    }

    private long nodesHolding() {
        return nodes.stream().filter(RedisServer::isRunning)
                .filter(node -> RedisKeys.isHeldValue((String) Resp.call(node.port(), "GET", KEY))).count();
    }

    /** Returns the owner id that holds the lock on {@code node}, or null if it is free there. */
    private static String ownerOn(RedisServer node) {
        String value = (String) Resp.call(node.port(), "GET", KEY);
        return RedisKeys.isHeldValue(value) ? value.substring(value.indexOf(':') + 1) : null;
    }

    @Test
    void withTwoOfFiveNodesDeadLocksAreStillGrantedAndExclusive() throws Exception {
        try (LockClient first = client(); LockClient second = client()) {
            nodes.get(0).kill();
            nodes.get(3).kill();

            Lease lease = first.getLock("orders").acquire(Duration.ofSeconds(5));

            assertThat(nodesHolding()).isEqualTo(3);
            assertThat(second.getLock("orders").tryAcquire(Duration.ofMillis(200))).as("the lock is exclusive").isEmpty();
            assertThat(second.getLock("orders").isLocked()).isTrue();
            long token = lease.fencingToken();
            lease.close();
            assertThat(nodesHolding()).as("released on every live node").isZero();
            try (Lease next = second.getLock("orders").acquire(Duration.ofSeconds(5))) {
                assertThat(next.fencingToken()).isGreaterThan(token);
            }
        }
    }

    @Test
    void withThreeOfFiveNodesDeadAcquireFailsWithAClearError() throws Exception {
        try (LockClient client = client()) {
            nodes.get(1).kill();
            nodes.get(2).kill();
            nodes.get(4).kill();

            assertThatThrownBy(() -> client.getLock("orders").acquire(Duration.ofSeconds(5)))
                    .isInstanceOf(BackendUnavailableException.class)
                    .hasMessageContaining("only 2 of 5 RedLock nodes answered")
                    .hasMessageContaining("a majority of 3 is needed");
            // the failed attempt's grants are released in the background, as their answers arrive
            Await.until(Duration.ofSeconds(10), "the two grants were released", () -> nodesHolding() == 0);
        }
    }

    @Test
    void aLeaseWhoseValidityIsEatenBySlowNodesIsNotGrantedAndIsReleased() throws Exception {
        try (ProxiedNodes proxied = new ProxiedNodes()) {
            List<TcpProxy> proxies = proxied.proxies;
            List<RedisLockBackend> backends = proxied.backends;
            RedLockBackend redLock = new RedLockBackend(connected(backends), Duration.ofSeconds(2), Duration.ofSeconds(3));
            proxies.forEach(proxy -> proxy.delay(Duration.ofMillis(150)));

            AcquireResult result = redLock.tryAcquire("orders", "owner-1", Duration.ofMillis(100)).get();

            assertThat(result.granted()).as("every node granted, but after the 100 ms lease was used up").isFalse();
            proxies.forEach(proxy -> proxy.delay(Duration.ZERO));
            // the 100 ms grants arrive after their lease: whether released or expired, they must be gone
            Await.until(Duration.ofSeconds(5), "the late grants are released or expired", () -> nodesHolding() == 0);
            AcquireResult fast = redLock.tryAcquire("orders", "owner-2", Duration.ofSeconds(5)).get();
            assertThat(fast.granted()).as("with fast nodes the same call succeeds").isTrue();
        }
    }

    @Test
    void aLateGrantOfAFailedAttemptIsReleasedWithoutTouchingTheNextAttempt() throws Exception {
        try (ProxiedNodes proxied = new ProxiedNodes()) {
            List<TcpProxy> proxies = proxied.proxies;
            List<RedisLockBackend> backends = proxied.backends;
            RedLockBackend redLock = new RedLockBackend(connected(backends), Duration.ofMillis(250), Duration.ofSeconds(3));
            // nodes 3 and 4 are held by someone else; node 2 answers late
            backends.get(3).tryAcquire("orders", "other", Duration.ofSeconds(10)).get();
            backends.get(4).tryAcquire("orders", "other", Duration.ofSeconds(10)).get();
            proxies.get(2).delay(Duration.ofMillis(300));

            AcquireResult first = redLock.tryAcquire("orders", "me", Duration.ofSeconds(5)).get();
            assertThat(first.granted()).as("2 grants, 2 busy, 1 late: no majority").isFalse();
            proxies.get(2).delay(Duration.ZERO);

            // The same acquisition tries again at once. On node 2 the first attempt's late acquire and its
            // release (sent when the attempt failed, on the same connection) run before this attempt's
            // acquire, whatever the timing: a grant must mean that a majority really holds the lock under
            // this attempt's id, which the first attempt's release cannot take away.
            AcquireResult second = redLock.tryAcquire("orders", "me", Duration.ofSeconds(5)).get();
            if (second.granted()) {
                String owner = ownerOn(nodes.get(0));
                assertThat(owner).isNotNull();
                assertThat(nodes.subList(0, 3)).as("a majority holds it under the second attempt's id")
                        .allMatch(node -> owner.equals(ownerOn(node)));
                assertThat(redLock.release("orders", "me").get()).isEqualTo(io.distlock.spi.OwnerCheck.OWNER);
            } else {
                Await.until(Duration.ofSeconds(5), "node 2 ran the late acquire and its release",
                        () -> Resp.call(nodes.get(2).port(), "GET", KEY) != null
                                && !RedisKeys.isHeldValue((String) Resp.call(nodes.get(2).port(), "GET", KEY)));
            }
            assertThat(nodesHolding()).as("only the other owner's two nodes hold the lock").isEqualTo(2);
            backends.get(3).release("orders", "other").get();
            backends.get(4).release("orders", "other").get();
            assertThat(redLock.tryAcquire("orders", "me", Duration.ofSeconds(5)).get().granted()).isTrue();
            assertThat(nodesHolding()).isEqualTo(5);
            assertThat(redLock.release("orders", "me").get()).isEqualTo(io.distlock.spi.OwnerCheck.OWNER);
            assertThat(nodesHolding()).isZero();
        }
    }

    @Test
    void aGrantThatArrivesAfterItsRequestTimedOutInLettuceIsReleasedLongBeforeItsLeaseEnds() throws Exception {
        List<RedisLockBackend> backends = new ArrayList<>();
        for (RedisServer node : nodes) {
            backends.add(RedisLockClient.builder().uri(node.uri()).operationTimeout(Duration.ofMillis(300)).openBackend());
        }
        RedLockBackend redLock = new RedLockBackend(connected(backends), Duration.ofMillis(100), Duration.ofSeconds(1));
        try {
            // load the scripts on node 2 (a request that times out never falls back from EVALSHA to EVAL)
            backends.get(2).tryAcquire("warm-up", "warm-up", Duration.ofSeconds(1)).get();
            backends.get(2).release("warm-up", "warm-up").get();
            // nodes 3 and 4 are held by someone else; node 2 is frozen, so the attempt cannot win
            backends.get(3).tryAcquire("orders", "other", Duration.ofMinutes(5)).get();
            backends.get(4).tryAcquire("orders", "other", Duration.ofMinutes(5)).get();
            nodes.get(2).pause();

            AcquireResult result = redLock.tryAcquire("orders", "me", Duration.ofMinutes(5)).get();
            assertThat(result.granted()).isFalse();
            // a command sent after the acquire times out after it: once it has, so has the acquire
            CompletableFuture<Boolean> probe = backends.get(2).isLocked("orders");
            Await.until(Duration.ofSeconds(10), "node 2's requests timed out in Lettuce", probe::isCompletedExceptionally);
            nodes.get(2).resume();

            Await.until(Duration.ofSeconds(10), "node 2 ran the acquire and then its release",
                    () -> !RedisKeys.isHeldValue((String) Resp.call(nodes.get(2).port(), "GET", KEY))
                            && (Long) Resp.call(nodes.get(2).port(), "EXISTS", KEY) == 1);
            assertThat(nodesHolding()).as("only the other owner's two nodes hold it").isEqualTo(2);
        } finally {
            backends.forEach(RedisLockBackend::close);
        }
    }

    @Test
    void aLeaseIsRenewedByAMajorityWithTwoOfFiveNodesDeadAndLostWhenAThirdDies() throws Exception {
        Duration lease = Duration.ofSeconds(2);
        try (LockClient client = client(lease)) {
            Lease held = client.getLock("orders").acquire(Duration.ofSeconds(5));
            CompletableFuture<LeaseLostException> lost = new CompletableFuture<>();
            held.onLost(lost::complete);

            nodes.get(0).kill();
            nodes.get(3).kill();
            long start = System.nanoTime();
            Await.until(Duration.ofSeconds(30), "three lease times passed", () -> System.nanoTime() - start > lease.multipliedBy(3).toNanos());
            assertThat(lost.getNow(null)).as("renewed by three of five").isNull();
            assertThat(held.isValid()).as("renewed by three of five").isTrue();

            nodes.get(4).kill();
            assertThat(lost.get(10, TimeUnit.SECONDS).reason()).as("two of five cannot renew it").isEqualTo(Reason.EXPIRED);
            assertThat(held.isValid()).isFalse();
        }
    }

    @Test
    void aSplitVoteAnswersBusyWithAShortRandomBackoffAndReleasesItsGrant() throws Exception {
        List<RedisLockBackend> backends = new ArrayList<>();
        for (RedisServer node : nodes) {
            backends.add(RedisLockClient.builder().uri(node.uri()).openBackend());
        }
        RedLockBackend redLock = new RedLockBackend(connected(backends), Duration.ofMillis(500), Duration.ofSeconds(3));
        try {
            // two competitors got two nodes each, for a long time; only node 4 is free
            backends.get(0).tryAcquire("orders", "a", Duration.ofMinutes(2)).get();
            backends.get(1).tryAcquire("orders", "a", Duration.ofMinutes(2)).get();
            backends.get(2).tryAcquire("orders", "b", Duration.ofMinutes(2)).get();
            backends.get(3).tryAcquire("orders", "b", Duration.ofMinutes(2)).get();

            AcquireResult result = redLock.tryAcquire("orders", "me", Duration.ofMinutes(2)).get();

            assertThat(result.granted()).isFalse();
            assertThat(result.holderRemaining()).as("a short random backoff, not the holders' 2 min leases")
                    .isPositive().isLessThan(Duration.ofSeconds(1));
            Await.until(Duration.ofSeconds(10), "node 4's grant was released (its lease is 2 min)",
                    () -> String.valueOf(Resp.call(nodes.get(4).port(), "GET", KEY)).contains("::released:"));
        } finally {
            backends.forEach(RedisLockBackend::close);
        }
    }

    @Test
    void badSettingsAreRefusedWithTheReason() {
        assertThatThrownBy(() -> RedLockClient.create("redis://127.0.0.1:1", "redis://127.0.0.1:2"))
                .hasMessageContaining("at least 3 independent Redis masters, got 2");
        assertThatThrownBy(() -> RedLockClient.builder().uris(List.of("redis://a:1", "redis://a:1", "redis://b:1")))
                .hasMessageContaining("distinct");
        assertThatThrownBy(() -> RedLockClient.builder().uris(nodes.stream().map(RedisServer::uri).toList())
                .leaseTime(Duration.ofMillis(300)).nodeTimeout(Duration.ofMillis(50)).build())
                .hasMessageContaining("nodeTimeout (PT0.05S) must be at most a tenth of the lease time (PT0.3S)");
        nodes.get(2).kill();
        nodes.get(3).kill();
        nodes.get(4).kill();
        assertThatThrownBy(() -> RedLockClient.builder().uris(nodes.stream().map(RedisServer::uri).toList())
                .connectTimeout(Duration.ofMillis(500)).build())
                .isInstanceOf(BackendUnavailableException.class)
                .hasMessageContaining("needs a majority of 3 of its 5 nodes to start")
                .hasMessageContaining(nodes.get(2).uri().replace("redis://", ""));
    }

    @Test
    void aLeaseShorterThanTenNodeTimeoutsIsRefusedForEveryLockNotOnlyTheDefault() {
        try (LockClient client = client()) {
            LockOptions tooShort = LockOptions.builder().leaseTime(Duration.ofSeconds(2)).build();
            assertThatThrownBy(() -> client.getLock("orders", tooShort))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("nodeTimeout (PT0.25S) must be at most a tenth of the lease time (PT2S)");
            assertThat(client.getLock("orders", LockOptions.builder().leaseTime(Duration.ofMillis(2500)).build())).isNotNull();
        }
    }

    @Test
    void theClientStartsWithAMajorityOfNodesAndTheOthersJoinWhenTheyComeUp() throws Exception {
        nodes.get(1).kill();
        nodes.get(3).kill();
        try (LockClient client = client()) {
            try (Lease lease = client.getLock("orders").acquire(Duration.ofSeconds(5))) {
                assertThat(nodesHolding()).as("held on the three nodes that are up").isEqualTo(3);
            }

            nodes.get(1).start();
            nodes.get(3).start();

            Await.succeeds(Duration.ofSeconds(30), "the two nodes joined: a lock is held on all five", () -> {
                try (Lease lease = client.getLock("orders").acquire(Duration.ofSeconds(5))) {
                    assertThat(nodesHolding()).isEqualTo(5);
                }
                return null;
            });
        }
    }
}
