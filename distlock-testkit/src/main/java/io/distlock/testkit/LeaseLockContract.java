package io.distlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.DistributedLock;
import io.distlock.Lease;
import io.distlock.LeaseLostException;
import io.distlock.servers.Await;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The contract of backends whose locks are time-limited leases on the server (Redis, etcd, SQL):
 * expiry without renewal, the watchdog, stale holders, crashed holders and a frozen server.
 */
public abstract class LeaseLockContract extends LockContract {

    @Test
    void aLeaseThatIsNotRenewedExpiresLetsAnotherClientInAndTheHolderIsTold() throws Exception {
        String name = uniqueName();
        DistributedLock holder = newClient().getLock(name, lease(Duration.ofMillis(500), false));
        CountDownLatch lost = new CountDownLatch(1);
        holder.lock();
        Lease held = holder.heldLease();
        held.onLost(e -> lost.countDown());

        Optional<Lease> next = newClient().getLock(name).tryAcquire(SOON);
        assertThat(next).as("another client acquires once the lease ran out").isPresent();
        assertThat(lost.await(SOON.toSeconds(), TimeUnit.SECONDS)).as("onLost fired").isTrue();
        assertThat(held.isValid()).isFalse();
        assertThat(held.remaining()).isEqualTo(Duration.ZERO);
        assertThat(next.get().fencingToken()).isGreaterThan(held.fencingToken());

        assertThatThrownBy(holder::unlock).isInstanceOf(LeaseLostException.class);
        assertLocked(name);
        assertThat(next.get().isValid()).isTrue();
        next.get().close();
        assertUnlocked(name);
    }

    @Test
    void theWatchdogKeepsALockHeldForThreeTimesItsLease() throws Exception {
        String name = uniqueName();
        Duration leaseTime = Duration.ofMillis(1000);
        DistributedLock holder = newClient().getLock(name, lease(leaseTime, true));
        DistributedLock other = newClient().getLock(name);
        CountDownLatch lost = new CountDownLatch(1);
        try (Lease held = holder.acquire()) {
            held.onLost(e -> lost.countDown());
            long until = System.nanoTime() + leaseTime.multipliedBy(3).plusMillis(300).toNanos();
            while (System.nanoTime() - until < 0) {
                assertThat(held.isValid()).isTrue();
                assertLocked(name);
                assertThat(other.tryLock()).as("another client while the watchdog renews").isFalse();
                Thread.sleep(100);
            }
            assertThat(lost.getCount()).as("onLost did not fire").isEqualTo(1);
        }
        assertUnlocked(name);
    }

    @Test
    void aStaleHolderCannotReleaseTheNewOwnersLock() throws Exception {
        String name = uniqueName();
        DistributedLock stale = newClient().getLock(name, lease(Duration.ofMillis(300), false));
        Lease staleLease = stale.acquire();
        Await.until(SOON, "the stale lease expired locally", () -> !staleLease.isValid());

        Lease owner = newClient().getLock(name).acquire(SOON);
        staleLease.close(); // quiet: the loss was already reported through the lease
        assertLocked(name);
        assertThat(owner.isValid()).isTrue();

        assertThat(stale.tryLock()).as("the stale client while the new owner holds").isFalse();
        owner.close();
        assertUnlocked(name);
        assertThat(stale.tryLock()).as("the stale client after the new owner released").isTrue();
        stale.unlock();
    }

    @Test
    void aHolderProcessKilledWithoutReleasingFreesTheLockAfterItsLease() throws Exception {
        String name = uniqueName();
        long heldToken;
        try (HolderProcess holder = HolderProcess.start(factoryClass(), target(), name, Duration.ofSeconds(1))) {
            heldToken = holder.awaitHeldToken(Duration.ofSeconds(60));
            assertLocked(name);
            assertThat(newClient().getLock(name).tryLock()).isFalse();
            holder.kill();
        }
        Optional<Lease> next = newClient().getLock(name).tryAcquire(SOON);
        assertThat(next).as("the lock frees itself after the dead holder's lease").isPresent();
        assertThat(next.get().fencingToken()).isGreaterThan(heldToken);
        next.get().close();
    }

    @Test
    void aFrozenServerMakesTheLeaseLostNotSilentlyKept() throws Exception {
        String name = uniqueName();
        DistributedLock holder = newClient().getLock(name, lease(Duration.ofMillis(1000), true));
        CountDownLatch lost = new CountDownLatch(1);
        holder.lock();
        Lease held = holder.heldLease();
        held.onLost(e -> lost.countDown());
        backend().pause();
        try {
            assertThat(lost.await(SOON.toSeconds(), TimeUnit.SECONDS)).as("onLost fired while the server was frozen").isTrue();
            assertThat(held.isValid()).isFalse();
        } finally {
            backend().resume();
        }
        assertThatThrownBy(holder::unlock).isInstanceOf(LeaseLostException.class);
        assertThat(holder.isHeldByCurrentThread()).isFalse();
        Lease next = Await.succeeds(SOON, "the lock can be taken again", () -> newClient().getLock(name).acquire(Duration.ofSeconds(5)));
        assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
        next.close();
    }

    @Test
    void aGrantThatArrivesAfterTheCallerGaveUpIsReleased() throws Exception {
        String name = uniqueName();
        DistributedLock lock = newClient().getLock(name, lease(Duration.ofSeconds(120), false));
        lock.acquire().close(); // warm up: the server knows the scripts, so the frozen request will run
        backend().pause();
        try {
            // the request reaches the frozen server; the caller gives up when the operation times out
            assertThatThrownBy(() -> lock.tryAcquire(Duration.ofSeconds(30))).isInstanceOf(io.distlock.BackendUnavailableException.class);
        } finally {
            backend().resume();
        }
        // the server now runs the abandoned request and grants it; the engine must release that grant
        Await.until(SOON, "the abandoned grant is released (its lease would last 120 s)", () -> !lockedInBackend(name));
        assertThat(lock.isHeldByCurrentThread()).isFalse();
        Lease next = newClient().getLock(name).acquire(Duration.ofSeconds(5));
        next.close();
    }
}
