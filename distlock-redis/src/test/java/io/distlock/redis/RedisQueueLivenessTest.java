package io.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockKind;
import io.distlock.LockOptions;
import io.distlock.redis.testing.RedisServerExtension;
import io.distlock.servers.Await;
import io.distlock.testkit.HolderProcess;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A waiter of a fair lock that dies in the queue costs the others at most its heartbeat window, not a lease:
 * the release grants it on its behalf with a short pending lease, and the next waiter's check moves on. A
 * waiter that lives holds from the grant message on and claims its full lease itself.
 */
class RedisQueueLivenessTest {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();
    private static final Duration LONG_LEASE = Duration.ofMinutes(2);

    private final ExecutorService threads = Executors.newCachedThreadPool();

    @AfterEach
    void stop() {
        threads.shutdownNow();
    }

    @Test
    void aWaiterKilledInTheQueueDoesNotHoldTheLockForALease() throws Exception {
        String name = "killed-waiter-" + System.nanoTime();
        try (RedisLockClient client = RedisLockClient.create(redis.target());
                LockClient other = RedisLockClient.builder().uri(redis.target()).fallbackPoll(Duration.ofMillis(500)).build()) {
            Lease held = client.getFairLock(name, LockOptions.builder().leaseTime(LONG_LEASE).build()).acquire(Duration.ofSeconds(5));
            try (HolderProcess doomed = HolderProcess.start(RedisClientFactory.class, redis.target(), LockKind.FAIR_LOCK, name, LONG_LEASE)) {
                Await.until(Duration.ofSeconds(30), "the other process waits in the queue",
                        () -> client.inspector().orElseThrow().show(name, LockKind.FAIR_LOCK).map(state -> state.waiters() == 1).orElse(false));
                Future<Optional<Lease>> next = threads.submit(() -> other.getFairLock(name).tryAcquire(Duration.ofSeconds(40)));
                Await.until(Duration.ofSeconds(30), "a second waiter queues behind it",
                        () -> client.inspector().orElseThrow().show(name, LockKind.FAIR_LOCK).map(state -> state.waiters() == 2).orElse(false));
                doomed.kill();
                held.close(); // grants the dead waiter, on its behalf, for its heartbeat window only
                Optional<Lease> acquired = next.get(60, TimeUnit.SECONDS);
                assertThat(acquired).as("the waiter behind a dead one, long before the %s lease", LONG_LEASE).isPresent();
                acquired.get().close();
            }
        }
    }

    @org.junit.jupiter.params.ParameterizedTest(name = "autoRenew {0}")
    @org.junit.jupiter.params.provider.ValueSource(booleans = {true, false})
    void aWaiterGrantedOnReleaseHoldsAtOnceAndClaimsItsFullLease(boolean autoRenew) throws Exception {
        String name = "claimed-" + autoRenew + "-" + System.nanoTime();
        LockOptions longLease = LockOptions.builder().leaseTime(LONG_LEASE).autoRenew(autoRenew).build();
        try (RedisLockClient client = RedisLockClient.create(redis.target()); RedisLockClient other = RedisLockClient.create(redis.target())) {
            // a first wait leaves the other client's grant channel subscribed (it lingers), so that in the second its
            // join follows the subscription and the grant can only reach it by the message (no turn check races it)
            for (int round = 0; round < 2; round++) {
                Lease first = client.getFairLock(name).acquire(Duration.ofSeconds(5));
                Future<Lease> waiting = threads.submit(() -> other.getFairLock(name).acquire(Duration.ofSeconds(30)));
                Await.until(Duration.ofSeconds(30), "the other client waits in the queue",
                        () -> client.inspector().orElseThrow().show(name, LockKind.FAIR_LOCK).map(state -> state.waiters() == 1).orElse(false));
                first.close();
                waiting.get(30, TimeUnit.SECONDS).close();
            }
            Lease held = client.getFairLock(name).acquire(Duration.ofSeconds(5));
            Future<Lease> next = threads.submit(() -> other.getFairLock(name, longLease).acquire(Duration.ofSeconds(30)));
            Await.until(Duration.ofSeconds(30), "the other client waits in the queue",
                    () -> client.inspector().orElseThrow().show(name, LockKind.FAIR_LOCK).map(state -> state.waiters() == 1).orElse(false));
            held.close(); // grants the waiter for the heartbeat window (5 s), publishing the grant
            Lease granted = next.get(30, TimeUnit.SECONDS);

            assertThat(granted.isValid()).isTrue();
            assertThat(granted.remaining()).as("held from the grant: the pending lease, not yet the full one")
                    .isLessThanOrEqualTo(RedisQueues.MIN_HEARTBEAT);
            Await.until(Duration.ofSeconds(10), "the waiter claims its full lease on the server within the pending window",
                    () -> leaseLeftOnServer(client, name).compareTo(LONG_LEASE.minusSeconds(30)) > 0);
            Await.until(Duration.ofSeconds(10), "and locally", () -> granted.remaining().compareTo(LONG_LEASE.minusSeconds(30)) > 0);
            assertThat(granted.isValid()).isTrue();
            granted.close();
            assertThat(client.inspector().orElseThrow().show(name, LockKind.FAIR_LOCK).map(state -> state.holders().isEmpty()).orElse(true)).isTrue();
        }
    }

    private static Duration leaseLeftOnServer(RedisLockClient client, String name) {
        return client.inspector().orElseThrow().show(name, LockKind.FAIR_LOCK).flatMap(state -> state.holders().stream().findFirst())
                .map(holder -> holder.leaseLeft() == null ? Duration.ZERO : holder.leaseLeft()).orElse(Duration.ZERO);
    }
}
