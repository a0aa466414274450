package io.distlock.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.DistributedLock;
import io.distlock.Lease;
import io.distlock.LeaseLostException;
import io.distlock.LeaseLostException.Reason;
import io.distlock.LockClient;
import io.distlock.LockOptions;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The in-memory server and its clients behave as distlock's clients do on a real backend, and its faults are told. */
@ExtendWith(InMemoryLocks.class)
class InMemoryLockServerTest {
    private static final long SOON = 20;

    @Test
    void twoClientsExcludeEachOtherAndTokensGrow(LockClient first, LockClient second) throws Exception {
        Lease held = first.getLock("stock").acquire();
        assertThat(second.getLock("stock").tryAcquire(Duration.ZERO)).isEmpty();
        Future<Optional<Lease>> waiter = CompletableFuture.supplyAsync(() -> {
            try {
                return second.getLock("stock").tryAcquire(Duration.ofSeconds(SOON));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        held.close();
        Lease next = waiter.get(SOON, TimeUnit.SECONDS).orElseThrow();
        assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
        next.close();
    }

    @Test
    void aLostLeaseIsToldToItsHolderAndTheLockIsFreeAtOnce(LockClient holder, LockClient other, InMemoryLockServer server)
            throws Exception {
        DistributedLock lock = holder.getLock("job");
        lock.lock();
        CompletableFuture<LeaseLostException> lost = new CompletableFuture<>();
        lock.heldLease().onLost(lost::complete);

        assertThat(server.loseLease("job")).isTrue();
        Lease taken = other.getLock("job").tryAcquire(Duration.ZERO).orElseThrow();
        assertThat(lost.get(SOON, TimeUnit.SECONDS).reason()).as("another client has it now").isEqualTo(Reason.TAKEN_OVER);
        assertThatThrownBy(lock::unlock).isInstanceOf(LeaseLostException.class);
        assertThat(server.isLocked("job")).as("the new holder's lock is untouched").isTrue();
        taken.close();
    }

    @Test
    void aClockJumpEndsTheLeasesItPassesAndNoOthers(InMemoryLockServer server) throws Exception {
        LockClient client = server.newClient(LockOptions.builder().leaseTime(Duration.ofSeconds(10)).build());
        LockClient longer = server.newClient(LockOptions.builder().leaseTime(Duration.ofMinutes(10)).build());
        Lease shortLease = client.getLock("a").acquire();
        Lease longLease = longer.getLock("b").acquire();
        CompletableFuture<LeaseLostException> lost = new CompletableFuture<>();
        shortLease.onLost(lost::complete);

        server.advanceClock(Duration.ofMinutes(1));

        assertThat(server.isLocked("a")).isFalse();
        assertThat(server.isLocked("b")).isTrue();
        assertThat(lost.get(SOON, TimeUnit.SECONDS).reason()).isEqualTo(Reason.SERVER_LOST_LOCK);
        assertThat(longLease.isValid()).isTrue();
        longLease.close();
    }

    @Test
    void aForceUnlockIsToldAsSuch(LockClient holder, InMemoryLockServer server) throws Exception {
        Lease lease = holder.getLock("x").acquire();
        CompletableFuture<LeaseLostException> lost = new CompletableFuture<>();
        lease.onLost(lost::complete);
        assertThat(server.forceUnlock("x")).isTrue();
        assertThat(lost.get(SOON, TimeUnit.SECONDS).reason()).isEqualTo(Reason.FORCE_UNLOCKED);
    }

    @Test
    void onlyPlainLocksAndAClosedServerRefusesClients(LockClient client, InMemoryLockServer server) {
        assertThatThrownBy(() -> client.getFairLock("f")).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> client.getSemaphore("s", 2)).isInstanceOf(UnsupportedOperationException.class);
        server.close();
        assertThatThrownBy(server::newClient).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
        assertThatThrownBy(() -> client.getLock("x")).as("its clients closed with it").isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aReleaseOnAnotherThreadAndReentrancyWorkAsOnARealBackend(LockClient client, InMemoryLockServer server) throws Exception {
        DistributedLock lock = client.getLock("r");
        lock.lock();
        lock.lock();
        assertThat(lock.getHoldCount()).isEqualTo(2);
        lock.unlock();
        assertThat(server.isLocked("r")).isTrue();
        lock.unlock();
        assertThat(server.isLocked("r")).isFalse();
        Lease detached = lock.tryAcquireDetached(Duration.ZERO).orElseThrow();
        CompletableFuture.runAsync(detached::close).get(SOON, TimeUnit.SECONDS);
        assertThat(server.isLocked("r")).isFalse();
    }
}
