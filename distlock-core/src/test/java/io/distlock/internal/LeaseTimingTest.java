package io.distlock.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.DistributedLock;
import io.distlock.Lease;
import io.distlock.LeaseLostException;
import io.distlock.LeaseLostException.Reason;
import io.distlock.LockOptions;
import io.distlock.internal.MemoryStore.Op;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Lease timing on a manual clock: when a lease is trusted, when it is renewed, when and why it is lost.
 * Nothing here sleeps; the clock moves only when the test moves it.
 */
class LeaseTimingTest {
    private static final Duration LEASE = Duration.ofSeconds(3);

    private final ManualClock clock = new ManualClock();
    private final MemoryStore store = new MemoryStore(clock::nanoTime);
    private final List<EngineLockClient> clients = new CopyOnWriteArrayList<>();

    private EngineLockClient client(boolean autoRenew) {
        EngineLockClient client = MemoryLockClients.client(store.pollingBackend(Duration.ofSeconds(2)),
                LockOptions.builder().leaseTime(LEASE).autoRenew(autoRenew).build(), clock);
        clients.add(client);
        return client;
    }

    @AfterEach
    void closeClients() {
        clients.forEach(EngineLockClient::close);
    }

    private static List<LeaseLostException> lossesOf(Lease lease) {
        List<LeaseLostException> losses = new CopyOnWriteArrayList<>();
        lease.onLost(losses::add);
        return losses;
    }

    @Test
    void aLeaseWithoutRenewalIsTrustedUntilItsLocalDeadlineThenLostAsExpired() throws Exception {
        Lease lease = client(false).getLock("a").acquire();
        List<LeaseLostException> losses = lossesOf(lease);
        long drift = LEASE.toNanos() / 100 + TimeUnit.MILLISECONDS.toNanos(2);

        clock.advance(LEASE.minusNanos(drift + 1));
        assertThat(lease.isValid()).isTrue();
        assertThat(lease.remaining()).isEqualTo(Duration.ofNanos(1));

        clock.advance(Duration.ofNanos(1));
        assertThat(lease.isValid()).isFalse();
        assertThat(lease.remaining()).isZero();
        Awaiting.until(() -> losses.size() == 1);
        assertThat(losses.get(0).reason()).isEqualTo(Reason.EXPIRED);
        assertThat(losses.get(0).getMessage()).contains("autoRenew is off");
        lease.close(); // quiet
    }

    @Test
    void theWatchdogRenewsEveryThirdOfTheLeaseAndKeepsTheLeaseValid() throws Exception {
        Lease lease = client(true).getLock("a").acquire();
        List<LeaseLostException> losses = lossesOf(lease);
        for (int step = 0; step < 90; step++) {
            clock.advance(LEASE.dividedBy(30));
            assertThat(lease.isValid()).as("valid after %d steps", step + 1).isTrue();
        }
        assertThat(store.count(Op.RENEW, "a")).as("renewals over 3 leases").isBetween(8L, 10L);
        assertThat(losses).isEmpty();
        lease.close();
        assertThat(store.isHeld("a")).isFalse();
    }

    @Test
    void renewalsOfLocksAcquiredAtDifferentTimesStayInFewBatches() throws Exception {
        Duration lease = Duration.ofMillis(1200);
        EngineLockClient client = MemoryLockClients.client(store.pollingBackend(Duration.ofSeconds(2)),
                LockOptions.builder().leaseTime(lease).build(), clock);
        clients.add(client);
        List<Lease> leases = new java.util.ArrayList<>();
        for (int i = 0; i < 100; i++) {
            leases.add(client.getLock("spread-" + i).acquire());
            clock.advance(Duration.ofMillis(9)); // acquired over most of the lease: their expiry checks fall among the renewals
        }
        long before = store.count(Op.RENEW);
        for (int step = 0; step < 12_000; step++) {
            clock.advance(Duration.ofMillis(1)); // ten leases, thirty renewal intervals
        }
        long calls = store.count(Op.RENEW) - before;
        for (Lease held : leases) {
            assertThat(held.isValid()).isTrue();
        }
        // one renewal per lock per interval would be 3,000; a due renewal takes every renewal due within a quarter of the
        // interval along, so the batches (of at most 50 here) stay about a quarter interval apart: about three calls per
        // interval (91). Ticks cut short at every expiry check, or taking early renewals for one, split them: 153
        assertThat(calls).as("renewal calls (batches) over thirty intervals").isLessThanOrEqualTo(30 * 4);
        leases.forEach(Lease::close);
    }

    /**
     * Fails if a renewal confirmed after the lease's local deadline brings the lease back to life. The process was stopped
     * while the renewal was on the way: when it resumes, the deadline has passed and the expiry check and the confirmation
     * are both due; which runs first must not decide. Here the confirmation runs first, and the deadline it would set is
     * still ahead (renewal sent at a third of the lease): the lease was not valid from its deadline on, and a holder may
     * have stopped on that, so it is lost as EXPIRED. (A checker soak on PostgreSQL recorded such a lease as renewed.)
     */
    @Test
    void aRenewalConfirmedAfterTheLocalDeadlineDoesNotBringTheLeaseBackAndItIsLostAsExpired() throws Exception {
        Lease lease = client(true).getLock("stopped").acquire();
        List<LeaseLostException> losses = lossesOf(lease);
        store.holdReplies(Op.RENEW);
        clock.advance(LEASE.dividedBy(3)); // the first renewal is sent; the server renews, its answer is held
        Awaiting.until(() -> store.heldReplyCount() == 1);
        clock.jump(LEASE.multipliedBy(5).dividedBy(6)); // stopped: now past the first deadline, before the renewal's; no timer ran
        assertThat(lease.isValid()).as("past the deadline of the grant").isFalse();

        store.deliverReplies();
        assertThat(lease.isValid()).as("after the late confirmation").isFalse();
        Awaiting.until(() -> losses.size() == 1);
        assertThat(losses.get(0).reason()).isEqualTo(Reason.EXPIRED);
        assertThat(losses.get(0).getMessage()).contains("only after the lease's local deadline");
        clock.advance(LEASE.dividedBy(30)); // the overdue timers run: nothing more happens
        assertThat(lease.isValid()).isFalse();
        assertThat(losses).hasSize(1);
        lease.close();
    }

    /** The same for a renewal by hand ({@code Lease#renew}): answered after the deadline, it returns false and the lease is lost. */
    @Test
    void aRenewalByHandConfirmedAfterTheLocalDeadlineDoesNotBringTheLeaseBack() throws Exception {
        Lease lease = client(false).getLock("stopped-by-hand").acquire();
        List<LeaseLostException> losses = lossesOf(lease);
        clock.advance(LEASE.dividedBy(3));
        store.holdReplies(Op.RENEW);
        CompletableFuture<Boolean> renewing = CompletableFuture.supplyAsync(() -> lease.renew(LEASE)); // sent now, for a whole lease
        Awaiting.until(() -> store.heldReplyCount() == 1);
        clock.jump(LEASE.multipliedBy(5).dividedBy(6)); // stopped: past the grant's deadline, before the renewal's; no timer ran
        assertThat(lease.isValid()).as("past the deadline of the grant").isFalse();

        store.deliverReplies();
        assertThat(renewing.get(10, TimeUnit.SECONDS)).as("the late renewal by hand").isFalse();
        assertThat(lease.isValid()).as("after the late confirmation").isFalse();
        Awaiting.until(() -> losses.size() == 1);
        assertThat(losses.get(0).reason()).isEqualTo(Reason.EXPIRED);
        assertThat(losses.get(0).getMessage()).contains("only after the lease's local deadline");
        lease.close();
    }

    @Test
    void theFirstRenewalIsTimedFromWhenTheAcquireWasSentNotWhenTheGrantArrived() throws Exception {
        EngineLockClient client = client(true);
        store.holdReplies(Op.ACQUIRE);
        CompletableFuture<Lease> acquiring = CompletableFuture.supplyAsync(() -> {
            try {
                return client.getLock("slow-grant").acquire();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        Awaiting.until(() -> store.heldReplyCount() == 1);
        clock.advance(LEASE.multipliedBy(2).dividedBy(3)); // the grant takes two thirds of the lease to arrive
        store.deliverReplies();
        Lease lease = acquiring.get(10, TimeUnit.SECONDS);
        List<LeaseLostException> losses = lossesOf(lease);

        for (int step = 0; step < 60; step++) {
            clock.advance(LEASE.dividedBy(30));
            assertThat(lease.isValid()).as("valid %d steps after the slow grant", step + 1).isTrue();
        }
        assertThat(losses).as("a renewal timed from the grant's arrival would come after the server's expiry").isEmpty();
        lease.close();
    }

    @Test
    void aGrantAtTheJoinOfAQueueCountsItsLeaseFromWhenTheJoinWasSent() throws Exception {
        EngineLockClient client = MemoryLockClients.client(store.queueBackend(Duration.ofSeconds(2)),
                LockOptions.builder().leaseTime(LEASE).autoRenew(false).build(), clock);
        clients.add(client);
        store.holdReplies(Op.ENQUEUE);
        CompletableFuture<Lease> acquiring = CompletableFuture.supplyAsync(() -> {
            try {
                return client.getLock("granted-at-join").acquire();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        Awaiting.until(() -> store.heldReplyCount() == 1);
        clock.advance(LEASE.multipliedBy(2).dividedBy(3)); // the join's answer (a grant) takes two thirds of the lease
        store.deliverReplies();
        Lease lease = acquiring.get(10, TimeUnit.SECONDS);
        assertThat(lease.remaining()).as("the lease counts from the join, not from the turn check after the slow answer")
                .isLessThanOrEqualTo(LEASE.dividedBy(3));
        lease.close();
    }

    @Test
    void aRenewalThatFindsAnotherOwnerLosesTheLeaseAsTakenOver() throws Exception {
        Lease lease = client(true).getLock("a").acquire();
        List<LeaseLostException> losses = lossesOf(lease);
        store.restart(); // the server forgets the lock ...
        Lease other = client(true).getLock("a").acquire(Duration.ZERO); // ... and someone else takes it

        clock.advance(LEASE.dividedBy(3));

        Awaiting.until(() -> losses.size() == 1);
        assertThat(losses.get(0).reason()).isEqualTo(Reason.TAKEN_OVER);
        assertThat(lease.isValid()).isFalse();
        assertThat(other.isValid()).isTrue();
        assertThat(other.fencingToken()).isGreaterThan(lease.fencingToken());
        other.close();
    }

    @Test
    void aRenewalThatFindsNoHoldLosesTheLeaseAsLostByTheServer() throws Exception {
        DistributedLock lock = client(true).getLock("a");
        lock.lock();
        List<LeaseLostException> losses = lossesOf(lock.heldLease());
        store.restart();

        clock.advance(LEASE.dividedBy(3));

        Awaiting.until(() -> losses.size() == 1);
        assertThat(losses.get(0).reason()).isEqualTo(Reason.SERVER_LOST_LOCK);
        assertThatThrownBy(lock::unlock).isInstanceOf(LeaseLostException.class)
                .satisfies(e -> assertThat(((LeaseLostException) e).reason()).isEqualTo(Reason.SERVER_LOST_LOCK));
    }

    @Test
    void aForceUnlockByAnotherClientIsFoundByTheNextRenewal() throws Exception {
        Lease lease = client(true).getLock("a").acquire();
        List<LeaseLostException> losses = lossesOf(lease);
        assertThat(client(true).getLock("a").forceUnlock()).isTrue();

        clock.advance(LEASE.dividedBy(3));

        Awaiting.until(() -> losses.size() == 1);
        assertThat(losses.get(0).reason()).isEqualTo(Reason.FORCE_UNLOCKED);
    }

    @Test
    void unansweredRenewalsLoseTheLeaseAtItsDeadlineAndItIsLetGoWhenTheServerComesBack() throws Exception {
        Lease lease = client(true).getLock("a").acquire();
        List<LeaseLostException> losses = lossesOf(lease);
        store.pause();
        for (int step = 0; step < 40 && losses.isEmpty(); step++) {
            clock.advance(LEASE.dividedBy(30));
        }
        Awaiting.until(() -> losses.size() == 1);
        assertThat(losses.get(0).reason()).isEqualTo(Reason.EXPIRED);
        assertThat(losses.get(0).getMessage()).contains("no renewal was confirmed");
        store.resume(); // the queued renewals run, then the engine's compare-and-release
        assertThat(store.isHeld("a")).as("the lost lease was let go, not left to expire").isFalse();
    }

    @Test
    void aThrowingBackendCallForOneExpiredLeaseDoesNotKeepTheOthersOfTheTickFromBeingLost() throws Exception {
        EngineLockClient client = client(false);
        Lease first = client.getLock("a").acquire();
        Lease second = client.getLock("b").acquire();
        List<LeaseLostException> firstLosses = lossesOf(first);
        List<LeaseLostException> secondLosses = lossesOf(second);
        store.throwNext(Op.RELEASE, new IllegalStateException("boom")); // letting go of the first one throws

        clock.advance(LEASE);

        Awaiting.until(() -> firstLosses.size() == 1 && secondLosses.size() == 1);
        assertThat(first.isValid()).isFalse();
        assertThat(second.isValid()).isFalse();
    }

    @Test
    void aLeaseAddedBeforeTheNextTickMovesTheOneTickInsteadOfAddingAnother() throws Exception {
        EngineLockClient client = client(true);
        Lease longLease = client.getLock("long", LockOptions.builder().leaseTime(Duration.ofMinutes(10)).build()).acquire();
        assertThat(clock.pendingTimers()).isEqualTo(1);
        Lease shortLease = client.getLock("short", LockOptions.builder().leaseTime(Duration.ofSeconds(1)).build()).acquire();
        assertThat(clock.pendingTimers()).as("one tick, moved earlier").isEqualTo(1);
        clock.advance(Duration.ofSeconds(2));
        assertThat(clock.pendingTimers()).isEqualTo(1);
        assertThat(shortLease.isValid()).isTrue();
        shortLease.close();
        longLease.close();
    }

    @Test
    void aRenewalByHandSetsTheLeaseOnTheServerAndTheLocalDeadlineLongerOrShorter() throws Exception {
        EngineLockClient client = client(false);
        Lease lease = client.getLock("a").acquire();
        List<LeaseLostException> losses = lossesOf(lease);

        assertThat(lease.renew(Duration.ofSeconds(10))).isTrue();
        clock.advance(LEASE.plusSeconds(1)); // past the first lease
        assertThat(lease.isValid()).isTrue();
        assertThat(store.isHeld("a")).as("the server keeps it for the new lease").isTrue();
        assertThat(lease.remaining()).isLessThanOrEqualTo(Duration.ofSeconds(6));

        assertThat(lease.renew(Duration.ofSeconds(1))).as("shorter").isTrue();
        assertThat(lease.remaining()).isLessThanOrEqualTo(Duration.ofSeconds(1));
        clock.advance(Duration.ofSeconds(1));
        assertThat(lease.isValid()).isFalse();
        // the loss is told at the new deadline, not at the 10 s one queued before
        Awaiting.until(() -> losses.size() == 1);
        assertThat(losses.get(0).reason()).isEqualTo(Reason.EXPIRED);
        assertThat(store.isHeld("a")).isFalse();
        assertThat(lease.renew(Duration.ofSeconds(10))).as("lost: nothing to renew").isFalse();
        lease.close();
    }

    @Test
    void aRenewalByHandIsRefusedForAWatchdogLeaseAndForBadTimesAndIsFalseWhenClosed() throws Exception {
        Lease renewed = client(true).getLock("a").acquire();
        assertThatThrownBy(() -> renewed.renew(Duration.ofSeconds(10))).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("watchdog");
        renewed.close();
        Lease lease = client(false).getLock("b").acquire();
        assertThatThrownBy(() -> lease.renew(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> lease.renew(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> lease.renew(Duration.ofMillis(1))).isInstanceOf(IllegalArgumentException.class);
        DistributedLock lock = client(false).getLock("c");
        lock.lock();
        assertThat(lock.heldLease().renew(Duration.ofSeconds(10))).as("the thread's hold, through its view").isTrue();
        clock.advance(LEASE.plusSeconds(1));
        assertThat(lock.heldLease().isValid()).isTrue();
        lock.unlock();
        lease.close();
        assertThat(lease.renew(Duration.ofSeconds(10))).as("closed").isFalse();
    }

    @Test
    void aRenewalByHandThatAWatchdogRenewalOverlapsTrustsOnlyTheShorterOfTheTwo() throws Exception {
        // a grant with a short first lease is renewed once by the watchdog, for the options' lease; the server applies
        // whichever of that and a renewal by hand comes last, so the holder may count only on the shorter
        QueueMemoryBackend backend = store.queueBackend(Duration.ofSeconds(2));
        EngineLockClient client = MemoryLockClients.client(backend, LockOptions.builder().leaseTime(LEASE).autoRenew(false).build(), clock);
        clients.add(client);
        backend.grantNextFor(Duration.ofMillis(300));
        Lease lease = client.getLock("a").acquire();
        store.pause();
        clock.advance(Duration.ofMillis(100)); // the watchdog's first renewal is sent, and waits at the server
        Awaiting.until(() -> store.pausedRequestCount() == 1);
        CompletableFuture<Boolean> byHand = CompletableFuture.supplyAsync(() -> lease.renew(Duration.ofSeconds(30)));
        Awaiting.until(() -> store.pausedRequestCount() == 2);
        store.resume();
        assertThat(byHand.get(5, TimeUnit.SECONDS)).isTrue();
        assertThat(lease.remaining()).isLessThanOrEqualTo(LEASE);

        assertThat(lease.renew(Duration.ofSeconds(30))).as("alone").isTrue();
        assertThat(lease.remaining()).isGreaterThan(LEASE);
        lease.close();
    }

    @Test
    void repeatedRenewalsByHandDoNotPileUpExpiryChecksAndTheLastDeadlineHolds() throws Exception {
        EngineLockClient client = client(false);
        Lease lease = client.getLock("a").acquire();
        List<LeaseLostException> losses = lossesOf(lease);
        for (int i = 0; i < 50; i++) {
            assertThat(lease.renew(i % 2 == 0 ? Duration.ofSeconds(10) : Duration.ofSeconds(8))).isTrue();
        }
        assertThat(client.engine().watchdog().queued()).as("expiry checks queued (one per renewal before)").isLessThanOrEqualTo(2);
        clock.advance(Duration.ofSeconds(7));
        assertThat(lease.isValid()).isTrue();
        clock.advance(Duration.ofSeconds(2)); // past the last renewal's 8 s
        Awaiting.until(() -> losses.size() == 1);
        assertThat(losses.get(0).reason()).isEqualTo(Reason.EXPIRED);
    }
}
