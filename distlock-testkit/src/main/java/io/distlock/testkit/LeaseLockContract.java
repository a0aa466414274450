package io.distlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.distlock.DistributedLock;
import io.distlock.Lease;
import io.distlock.LeaseLostException;
import io.distlock.LeaseLostException.Reason;
import io.distlock.LockClient;
import io.distlock.servers.Await;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The contract of backends whose locks are leases (Redis, RedLock, etcd, SQL, and ZooKeeper, whose lease
 * is bounded by its session): expiry without renewal, the watchdog, stale holders, crashed holders, a
 * frozen server, requests the caller gave up on, and, where {@link BackendHooks#hasSessions()}, a session's expiry.
 */
public abstract class LeaseLockContract extends LockContract {

    /**
     * Returns the fencing token the backend's own state remembers last for {@code name} (held or
     * released), read directly; empty if the backend keeps no such record (ZooKeeper deletes its nodes).
     * Shows that a request the caller gave up on really ran on the server.
     */
    protected OptionalLong lastTokenInBackend(String name) {
        return hooks().lastTokenInBackend(kind(), name);
    }

    /**
     * Returns the reasons a holder may be told when the server stops answering: its lease expires unconfirmed, or,
     * where locks are bound to a session, the session's suspension, whichever comes first.
     */
    protected Set<Reason> reasonsWhenTheServerStopsAnswering() {
        return hooks().hasSessions() ? Set.of(Reason.EXPIRED, Reason.SESSION_LOST) : Set.of(Reason.EXPIRED);
    }

    /**
     * Where locks are bound to a client session as well as a lease (ZooKeeper, etcd): the session's expiry ends every
     * lock of the client at once, tells the holder, and hands the lock on with a larger token.
     */
    @Test
    void theHoldersSessionExpiryEndsItsLockTellsItAndHandsTheLockOn() throws Exception {
        assumeTrue(hooks().hasSessions(), "the backend's locks are not bound to a session");
        String name = uniqueName();
        LockClient holderClient = newClient();
        DistributedLock holder = lockOf(holderClient, name);
        holder.lock();
        Lease held = holder.heldLease();
        CompletableFuture<LeaseLostException> lost = new CompletableFuture<>();
        held.onLost(lost::complete);
        DistributedLock waiterLock = lockOf(newClientWithoutPolling(), name);
        Future<Optional<Lease>> waiter = queuedWaiter(waiterLock, SOON);

        hooks().expireSession(holderClient);

        assertThat(lost.get(SOON.toSeconds(), TimeUnit.SECONDS).reason()).isEqualTo(Reason.SESSION_LOST);
        assertThat(held.isValid()).isFalse();
        Optional<Lease> next = waiter.get(SOON.toSeconds() + 10, TimeUnit.SECONDS);
        assertThat(next).as("the waiter got the lock the expired session held").isPresent();
        assertThat(next.get().fencingToken()).isGreaterThan(held.fencingToken());
        assertThatThrownBy(holder::unlock).isInstanceOf(LeaseLostException.class);
        assertLocked(name);
        next.get().close();
        assertUnlocked(name);
    }

    @Test
    void aLeaseThatIsNotRenewedExpiresLetsAnotherClientInAndTheHolderIsTold() throws Exception {
        String name = uniqueName();
        DistributedLock holder = lockOf(newClient(), name, lease(shortLease(), false));
        CountDownLatch lost = new CountDownLatch(1);
        holder.lock();
        Lease held = holder.heldLease();
        held.onLost(e -> lost.countDown());

        Optional<Lease> next = lockOf(newClient(), name).tryAcquire(SOON);
        assertThat(next).as("another client acquires once the lease ran out").isPresent();
        assertThat(lost.await(SOON.toSeconds(), TimeUnit.SECONDS)).as("onLost fired").isTrue();
        assertThat(held.isValid()).isFalse();
        assertThat(held.remaining()).isEqualTo(Duration.ZERO);
        assertThatThrownBy(holder::lock).as("re-entering the lost lock").isInstanceOf(LeaseLostException.class)
                .satisfies(e -> assertThat(((LeaseLostException) e).reason()).isEqualTo(Reason.EXPIRED));
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
        Duration leaseTime = shortLease().multipliedBy(2);
        DistributedLock holder = lockOf(newClient(), name, lease(leaseTime, true));
        DistributedLock other = lockOf(newClient(), name);
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
        DistributedLock stale = lockOf(newClient(), name, lease(shortLease(), false));
        Lease staleLease = stale.acquire();
        Await.until(SOON, "the stale lease expired locally", () -> !staleLease.isValid());

        Lease owner = lockOf(newClient(), name).acquire(SOON);
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
        try (HolderProcess holder = HolderProcess.start(factoryClass(), target(), kind(), name, shortLease().multipliedBy(2))) {
            heldToken = holder.awaitHeldToken(Duration.ofSeconds(60));
            assertLocked(name);
            assertThat(lockOf(newClient(), name).tryLock()).isFalse();
            holder.kill();
        }
        // no release is ever published: a waiter polling every 5 min must still not sleep past the holder's lease (nor
        // wait out its own wait and get the lock by a last check at the end of it)
        DistributedLock waiter = lockOf(newClientWithoutPolling(), name);
        Future<Optional<Lease>> waiting = inBackground(() -> waiter.tryAcquire(SOON));
        Await.until(SOON.minusSeconds(5), "the waiter acquires once the dead holder's lease is over, well before its own wait ends",
                waiting::isDone);
        Optional<Lease> next = waiting.get();
        assertThat(next).as("the lock frees itself after the dead holder's lease, and the waiter sees it").isPresent();
        assertThat(next.get().fencingToken()).isGreaterThan(heldToken);
        next.get().close();
    }

    /**
     * Issue 28, finding 6: a waiter that joined while its notification channel was still subscribed from a wait that
     * had just ended (Redis keeps a channel 2 s) was not told when the queue could next move, so it slept through its
     * whole fallback poll past a holder that had died: a dead holder must cost a waiter at most its lease plus about
     * one renewal interval, however recently the waiter waited before.
     */
    @Test
    void aWaiterThatJoinsRightAfterAnEarlierWaitStillTakesTheLockOnceADeadHoldersLeaseEnds() throws Exception {
        String name = uniqueName();
        DistributedLock waiter = lockOf(newClientWithoutPolling(), name);
        Future<Optional<Lease>> waiting;
        try (HolderProcess holder = HolderProcess.start(factoryClass(), target(), kind(), name, shortLease().multipliedBy(2))) {
            holder.awaitHeldToken(Duration.ofSeconds(60));
            assertThat(waiter.tryAcquire(Duration.ofMillis(300))).as("a first wait, while the holder holds").isEmpty();
            waiting = queuedWaiter(waiter, SOON); // at once: whatever the first wait subscribed to is still there
            holder.kill();
        }
        Await.until(SOON.minusSeconds(5), "the waiter acquires once the dead holder's lease is over, well before its own wait ends",
                waiting::isDone);
        assertThat(waiting.get()).as("the lock, after the dead holder's lease").isPresent().get().satisfies(Lease::close);
    }

    @Test
    void aFrozenServerMakesTheLeaseLostNotSilentlyKept() throws Exception {
        String name = uniqueName();
        DistributedLock holder = lockOf(newClient(), name, lease(shortLease().multipliedBy(2), true));
        CountDownLatch lost = new CountDownLatch(1);
        AtomicReference<LeaseLostException> report = new AtomicReference<>();
        holder.lock();
        Lease held = holder.heldLease();
        held.onLost(e -> {
            report.set(e);
            lost.countDown();
        });
        backend().pause();
        try {
            assertThat(lost.await(SOON.toSeconds(), TimeUnit.SECONDS)).as("onLost fired while the server was frozen").isTrue();
            assertThat(report.get().reason()).isIn(reasonsWhenTheServerStopsAnswering());
            assertThat(held.isValid()).isFalse();
        } finally {
            backend().resume();
        }
        assertThatThrownBy(holder::unlock).isInstanceOf(LeaseLostException.class);
        assertThat(holder.isHeldByCurrentThread()).isFalse();
        Lease next = Await.succeeds(SOON, "the lock can be taken again", () -> lockOf(newClient(), name).acquire(Duration.ofSeconds(5)));
        assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
        next.close();
    }

    @Test
    void aGrantThatArrivesAfterTheCallerGaveUpIsReleased() throws Exception {
        String name = uniqueName();
        DistributedLock lock = lockOf(newClient(), name, lease(longLease(), false));
        long warmUpToken;
        try (Lease warmUp = lock.acquire()) { // the server knows the scripts, so the frozen request will run
            warmUpToken = warmUp.fencingToken();
        }
        backend().pause();
        try {
            // the request reaches the frozen server; the caller gives up when the operation times out
            Optional<Lease> got;
            try {
                got = lock.tryAcquire(Duration.ofSeconds(30));
            } catch (io.distlock.BackendUnavailableException expected) {
                got = null;
            }
            if (got != null) {
                got.ifPresent(Lease::close);
                throw new AssertionError("a frozen server granted or refused: tryAcquire returned " + got.map(l -> "a lease with token "
                        + l.fencingToken()).orElse("empty") + " instead of failing when the operation timed out");
            }
        } finally {
            backend().resume();
        }
        // the server now runs the abandoned request and grants it; the engine must release that grant. Where the backend
        // remembers its last token, wait until the request has run first (a queue join is several statements on SQL: read
        // at once, the token could still be the warm-up's, and "not locked" would hold before the grant, not after it)
        if (lastTokenInBackend(name).isPresent()) {
            Await.until(SOON, "the abandoned request ran on the server (a later token than the warm-up's)",
                    () -> lastTokenInBackend(name).orElse(0) > warmUpToken);
        }
        Await.until(SOON, "the abandoned grant is released (its lease would last " + longLease() + ")", () -> !lockedInBackend(name));
        assertThat(lock.isHeldByCurrentThread()).isFalse();
        Lease next = lockOf(newClient(), name).acquire(Duration.ofSeconds(5));
        next.close();
    }

    @Test
    void anInterruptWhileARequestIsInFlightLeavesNothingHeld() throws Exception {
        interruptWhileARequestIsInFlight(false);
    }

    /** The same for a detached acquisition (a lease no thread owns: ShedLock's, the reactive @WithLock's). */
    @Test
    void anInterruptWhileADetachedAcquisitionsRequestIsInFlightLeavesNothingHeld() throws Exception {
        interruptWhileARequestIsInFlight(true);
    }

    private void interruptWhileARequestIsInFlight(boolean detached) throws Exception {
        String name = uniqueName();
        // an operation timeout longer than the test's wait: the interrupt, not a timeout, ends the call
        DistributedLock lock = lockOf(newClient(ClientSettings.DEFAULTS.withOperationTimeout(Duration.ofSeconds(30))),
                name, lease(longLease(), false));
        lock.acquire().close(); // warm up, as above
        AtomicReference<Thread> caller = new AtomicReference<>();
        backend().pause();
        Future<Throwable> call;
        try {
            call = inBackground(() -> {
                caller.set(Thread.currentThread());
                try {
                    (detached ? lock.tryAcquireDetached(SOON) : lock.tryAcquire(SOON)).ifPresent(Lease::close);
                    return null;
                } catch (Throwable t) {
                    return t;
                }
            });
            awaitParked(caller); // waiting for the frozen server's answer
            String parkedAt = stackOf(caller.get());
            caller.get().interrupt();
            Throwable thrown;
            try {
                thrown = call.get(SOON.toSeconds(), TimeUnit.SECONDS);
            } catch (java.util.concurrent.TimeoutException e) {
                throw new AssertionError("the interrupted call did not return within " + SOON + "; interrupted while parked at:\n" + parkedAt
                        + "\nnow at:\n" + stackOf(caller.get()), e);
            }
            assertThat(thrown).as("what the call threw; interrupted while parked at:%n%s", parkedAt).isInstanceOf(InterruptedException.class);
        } finally {
            backend().resume();
        }
        Await.until(SOON, "a grant of the interrupted request is released (its lease would last " + longLease() + ")",
                () -> !lockedInBackend(name));
        assertThat(lock.isHeldByCurrentThread()).isFalse();
        lockOf(newClient(), name).acquire(Duration.ofSeconds(5)).close();
    }

    @Test
    void expireAfterLeavesTheLockHeldWithoutItsHolderUntilThenOrChangesNothingWhereTheBackendCannot() throws Exception {
        String name = uniqueName();
        LockClient holderClient = newClient();
        DistributedLock other = lockOf(newClient(), name);
        Lease lease = lockOf(holderClient, name, lease(longLease(), true)).acquire(SOON);
        assertThatThrownBy(() -> lease.expireAfter(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
        boolean kept = lease.expireAfter(Duration.ofSeconds(2));
        if (!hooks().keepsLocksWithoutRenewals()) {
            assertThat(kept).as("this backend cannot keep a lock without renewals").isFalse();
            assertThat(lease.isValid()).as("and changed nothing").isTrue();
            lease.close();
            assertThat(other.tryAcquire(Duration.ZERO)).as("closed as usual").isPresent().get()
                    .satisfies(Lease::close);
            return;
        }
        long keptAt = System.nanoTime();
        assertThat(kept).isTrue();
        assertThat(lease.isValid()).as("no longer its holder's").isFalse();
        assertThat(lease.expireAfter(Duration.ofSeconds(2))).as("a second call: nothing left to keep").isFalse();
        Optional<Lease> early = other.tryAcquire(Duration.ZERO);
        boolean inTime = System.nanoTime() - keptAt < TimeUnit.MILLISECONDS.toNanos(1500); // else a loaded machine took the 2 s
        early.ifPresent(Lease::close);
        if (inTime) {
            assertThat(early).as("another client finds it held").isEmpty();
        }
        holderClient.close(); // releases what it holds: this lock is no longer among it
        if (System.nanoTime() - keptAt < TimeUnit.MILLISECONDS.toNanos(1500)) {
            assertThat(lockedInBackend(name)).as("held on the server after its holder's client closed").isTrue();
        }
        Optional<Lease> next = other.tryAcquire(SOON);
        assertThat(next).as("free once the 2 s ran out, with nobody renewing it").isPresent();
        next.get().close();
    }

    @Test
    void aRenewalByHandHoldsALeaseWithoutRenewalsForTheNewTimeAndAShorterOneEndsItThen() throws Exception {
        String name = uniqueName();
        DistributedLock other = lockOf(newClient(), name);
        Lease lease = lockOf(newClient(), name, lease(shortLease(), false)).acquire(SOON);
        CompletableFuture<LeaseLostException> lost = new CompletableFuture<>();
        lease.onLost(lost::complete);

        assertThat(lease.renew(longLease())).isTrue();
        assertThat(other.tryAcquire(shortLease().multipliedBy(4))).as("held past its first lease").isEmpty();
        assertThat(lease.isValid()).isTrue();
        assertThat(lost).isNotDone();

        assertThat(lease.renew(shortLease())).as("shorter").isTrue();
        assertThat(lost.get(SOON.toSeconds(), TimeUnit.SECONDS).reason()).isEqualTo(Reason.EXPIRED);
        Optional<Lease> next = other.tryAcquire(SOON);
        assertThat(next).as("free once the shorter lease ran out").isPresent();
        assertThat(next.get().fencingToken()).isGreaterThan(lease.fencingToken());
        next.get().close();
        assertThat(lease.renew(longLease())).as("lost: nothing to renew").isFalse();
        lease.close();

        Lease watched = lockOf(newClient(), name).acquire(SOON);
        assertThatThrownBy(() -> watched.renew(longLease())).isInstanceOf(IllegalStateException.class);
        watched.close();
    }
}
