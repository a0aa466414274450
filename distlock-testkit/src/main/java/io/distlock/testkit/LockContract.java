package io.distlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.distlock.BackendUnavailableException;
import io.distlock.DistributedLock;
import io.distlock.Lease;
import io.distlock.LeaseLostException;
import io.distlock.LeaseLostException.Reason;
import io.distlock.LockAcquireTimeoutException;
import io.distlock.LockClient;
import io.distlock.LockKind;
import io.distlock.LockOptions;
import io.distlock.servers.Await;
import io.distlock.servers.BackendControl;
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
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;

/**
 * The contract every backend honours: mutual exclusion, reentrancy, ownership, waiting, timeouts,
 * interruption, fencing tokens, loss reporting, any lock name, bad input and outages. A backend's test
 * class extends the tier that matches its capabilities and supplies the hooks of {@link ContractSupport};
 * it copies no test bodies.
 */
public abstract class LockContract extends ContractSupport {

    @Test
    void theServersKeepAHeldLockUntilItsClientClosesAndThenNothingOfIt() throws Exception {
        String name = uniqueName();
        assertTheServersKeepAHeldLockUntilItsClientCloses(name, client -> lockOf(client, name, lease(longLease(), false)).acquire(SOON));
    }

    @Test
    void mutualExclusionHoldsAcrossThreadsAndClients() throws Exception {
        String name = uniqueName();
        List<LockClient> twoClients = List.of(newClient(), newClient());
        int threadsPerClient = 4;
        int rounds = 15;
        int[] unprotected = {0};
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        List<Future<?>> workers = new ArrayList<>();
        for (LockClient client : twoClients) {
            for (int t = 0; t < threadsPerClient; t++) {
                workers.add(inBackground(() -> {
                    DistributedLock lock = lockOf(client, name);
                    for (int i = 0; i < rounds; i++) {
                        lock.lock();
                        try {
                            if (inside.incrementAndGet() != 1) {
                                overlaps.incrementAndGet();
                            }
                            int read = unprotected[0];
                            Thread.yield();
                            unprotected[0] = read + 1;
                            inside.decrementAndGet();
                        } finally {
                            lock.unlock();
                        }
                    }
                    return null;
                }));
            }
        }
        for (Future<?> worker : workers) {
            worker.get(2, TimeUnit.MINUTES);
        }
        assertThat(overlaps.get()).as("critical sections that overlapped").isZero();
        assertThat(unprotected[0]).isEqualTo(2 * threadsPerClient * rounds);
        assertUnlocked(name);
    }

    @Test
    void holdsAreReentrantCountedAndShareOneToken() throws Exception {
        String name = uniqueName();
        DistributedLock lock = lockOf(newClient(), name);
        DistributedLock other = lockOf(newClient(), name);
        lock.lock();
        lock.lock();
        Lease third = lock.acquire();
        assertThat(lock.getHoldCount()).isEqualTo(3);
        assertThat(lock.isHeldByCurrentThread()).isTrue();
        assertThat(third.fencingToken()).isEqualTo(lock.heldLease().fencingToken());

        lock.unlock();
        lock.unlock();
        assertThat(lock.getHoldCount()).isEqualTo(1);
        assertLocked(name);
        assertThat(other.tryLock()).as("another client while one hold remains").isFalse();

        third.close();
        third.close(); // idempotent
        assertThat(lock.getHoldCount()).isZero();
        assertThat(lock.isHeldByCurrentThread()).isFalse();
        assertUnlocked(name);
        assertThat(other.tryLock()).isTrue();
        other.unlock();
    }

    @Test
    void aDetachedLeaseBelongsToNoThreadAndOnlyItsCloseReleasesIt() throws Exception {
        String name = uniqueName();
        LockClient client = newClient();
        DistributedLock lock = lockOf(client, name);
        Lease detached = lock.tryAcquireDetached(Duration.ZERO).orElseThrow();
        assertLocked(name);
        assertThat(lock.isHeldByCurrentThread()).isFalse();
        assertThat(lock.getHoldCount()).isZero();
        assertThatThrownBy(lock::unlock).as("unlock() sees no hold of this thread").isInstanceOf(IllegalMonitorStateException.class);
        assertThat(lock.tryAcquire(Duration.ZERO)).as("the acquiring thread does not re-enter it").isEmpty();
        assertThat(lockOf(client, name).tryAcquireDetached(Duration.ZERO)).as("nor does a second detached acquisition").isEmpty();
        assertThat(inBackground(() -> lock.tryAcquire(Duration.ZERO).isPresent()).get(30, TimeUnit.SECONDS))
                .as("another thread of the same client").isFalse();
        assertThat(detached.isValid()).isTrue();

        // closed on another thread, as a future's completion would
        inBackground(() -> {
            detached.close();
            return null;
        }).get(30, TimeUnit.SECONDS);
        assertUnlocked(name);
        try (Lease next = lock.acquire(Duration.ofSeconds(10))) {
            assertThat(next.fencingToken()).isGreaterThan(detached.fencingToken());
            assertThatThrownBy(() -> lock.tryAcquireDetached(Duration.ZERO)).as("a holder would wait for itself")
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining(name);
        }
        assertThatThrownBy(() -> lock.tryAcquireDetached(Duration.ofSeconds(-1))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void unlockByAThreadOrClientThatDoesNotHoldTheLockThrowsAndReleasesNothing() throws Exception {
        String name = uniqueName();
        DistributedLock lock = lockOf(newClient(), name);
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class).hasMessageContaining(name);
        assertThatThrownBy(lock::heldLease).isInstanceOf(IllegalMonitorStateException.class);

        lock.lock();
        Future<Throwable> otherThread = inBackground(() -> {
            try {
                lock.unlock();
                return null;
            } catch (Throwable t) {
                return t;
            }
        });
        assertThat(otherThread.get(30, TimeUnit.SECONDS)).isInstanceOf(IllegalMonitorStateException.class);
        assertThatThrownBy(() -> lockOf(newClient(), name).unlock()).isInstanceOf(IllegalMonitorStateException.class);
        assertLocked(name);
        assertThat(lock.isHeldByCurrentThread()).isTrue();
        lock.unlock();
        assertUnlocked(name);
    }

    @Test
    void tryAcquireGivesUpAfterItsWaitTimeWhileAnotherClientHolds() throws Exception {
        String name = uniqueName();
        DistributedLock holder = lockOf(newClient(), name);
        DistributedLock waiter = lockOf(newClient(), name);
        try (Lease held = holder.acquire()) {
            long start = System.nanoTime();
            assertThat(waiter.tryAcquire(Duration.ofMillis(300))).isEmpty();
            assertThat(Duration.ofNanos(System.nanoTime() - start)).as("tryAcquire waited its time").isGreaterThanOrEqualTo(Duration.ofMillis(300));
            assertThat(waiter.tryAcquire(Duration.ZERO)).isEmpty();
            assertThat(waiter.tryLock()).isFalse();
            assertThat(waiter.tryLock(200, TimeUnit.MILLISECONDS)).isFalse();
            assertThatThrownBy(() -> waiter.acquire(Duration.ofMillis(200)))
                    .isInstanceOf(LockAcquireTimeoutException.class).hasMessageContaining(name);
            assertThat(held.isValid()).isTrue();
            assertLocked(name);
        }
        assertThat(waiter.tryAcquire(Duration.ZERO)).isPresent().get().satisfies(Lease::close);
    }

    @Test
    void tryAcquireGetsTheLockWhenItIsReleasedDuringTheWait() throws Exception {
        String name = uniqueName();
        Lease held = lockOf(newClient(), name).acquire();
        DistributedLock waiterLock = lockOf(newClient(), name);
        Future<Optional<Lease>> waiter = queuedWaiter(waiterLock, SOON); // waiting in the backend, not still asking
        held.close();
        Optional<Lease> acquired = waiter.get(SOON.toSeconds() + 10, TimeUnit.SECONDS);
        assertThat(acquired).as("the waiter got the lock released while it waited").isPresent();
        acquired.get().close();
    }

    @Test
    void interruptedWaiterThrowsAndLeavesNothingHeld() throws Exception {
        String name = uniqueName();
        DistributedLock holder = lockOf(newClient(), name);
        DistributedLock waiterLock = lockOf(newClient(), name);
        Lease held = holder.acquire();
        CountDownLatch started = new CountDownLatch(1);
        AtomicReference<Thread> waiterThread = new AtomicReference<>();
        Future<Throwable> waiter = inBackground(() -> {
            waiterThread.set(Thread.currentThread());
            started.countDown();
            try {
                waiterLock.tryAcquire(Duration.ofMinutes(5)).ifPresent(Lease::close);
                return null;
            } catch (Throwable t) {
                return t;
            }
        });
        assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();
        awaitWaitingInBackend(waiterThread); // queued, so the interrupt has something of the backend's to undo
        waiterThread.get().interrupt();
        assertThat(waiter.get(30, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
        held.close();
        // The waiter's last request may still be on its way (on a Cluster, behind a connection to the shard
        // being opened) and reach the server after this release: then it is granted and released again as
        // soon as its answer arrives. So "nothing held" is awaited, not sampled at once.
        Await.until(Duration.ofSeconds(10), "lock '" + name + "' is free in the backend", () -> !lockedInBackend(name));
        assertThat(waiterLock.isHeldByCurrentThread()).isFalse();
        assertThat(lockOf(newClient(), name).tryAcquire(Duration.ZERO)).as("nobody leaked a grant").isPresent();
    }

    /**
     * Issue 28 (claims without a test): {@code lock()} is not interruptible. A thread interrupted while it waits in the
     * backend takes the interrupt, keeps waiting, gets the lock once it is released and returns with its interrupt
     * flag set again, as {@link DistributedLock#lock()} documents.
     */
    @Test
    void lockKeepsWaitingThroughAnInterruptAndReassertsIt() throws Exception {
        String name = uniqueName();
        Lease held = lockOf(newClient(), name, lease(longLease(), false)).acquire();
        DistributedLock waiterLock = lockOf(newClientWithoutPolling(), name);
        AtomicReference<Thread> waiterThread = new AtomicReference<>();
        Future<Boolean> waiter = inBackground(() -> {
            waiterThread.set(Thread.currentThread());
            waiterLock.lock();
            try {
                assertThat(waiterLock.isHeldByCurrentThread()).isTrue();
                return Thread.currentThread().isInterrupted();
            } finally {
                waiterLock.unlock();
            }
        });
        awaitWaitingInBackend(waiterThread);
        waiterThread.get().interrupt();
        // the wait took the interrupt (its flag is clear again) and the thread went back to waiting in the backend
        Await.until(SOON, "the waiter took the interrupt", () -> !waiterThread.get().isInterrupted());
        awaitWaitingInBackend(waiterThread);
        assertThat(waiter.isDone()).as("lock() returned on an interrupt").isFalse();
        held.close();
        assertThat(waiter.get(SOON.toSeconds(), TimeUnit.SECONDS)).as("the interrupt flag after lock() returned").isTrue();
        Await.until(Duration.ofSeconds(10), "lock '" + name + "' is free in the backend", () -> !lockedInBackend(name));
    }

    /**
     * Issue 28 (claims without a test): {@code tryLock()} re-asserts an interrupt. With the flag set on entry the
     * attempt still answers (false on a lock held elsewhere, holding nothing) and the flag is still set afterwards.
     */
    @Test
    void tryLockReassertsAnInterruptAndHoldsNothingItDidNotReportHeld() throws Exception {
        String name = uniqueName();
        Lease held = lockOf(newClient(), name, lease(longLease(), false)).acquire();
        DistributedLock lock = lockOf(newClient(), name);
        Future<Boolean> attempt = inBackground(() -> {
            Thread.currentThread().interrupt();
            boolean acquired = lock.tryLock();
            boolean flag = Thread.currentThread().isInterrupted();
            assertThat(flag).as("the interrupt flag after tryLock()").isTrue();
            assertThat(lock.isHeldByCurrentThread()).isEqualTo(acquired);
            return acquired;
        });
        assertThat(attempt.get(SOON.toSeconds(), TimeUnit.SECONDS)).as("tryLock() on a lock another client holds").isFalse();
        held.close();
        Await.until(Duration.ofSeconds(10), "lock '" + name + "' is free in the backend", () -> !lockedInBackend(name));
        Future<Boolean> onAFreeLock = inBackground(() -> {
            Thread.currentThread().interrupt();
            boolean acquired = lock.tryLock();
            assertThat(Thread.currentThread().isInterrupted()).as("the interrupt flag after tryLock()").isTrue();
            assertThat(lock.isHeldByCurrentThread()).as("held exactly when tryLock() said so").isEqualTo(acquired);
            if (acquired) {
                lock.unlock();
            }
            return acquired;
        });
        onAFreeLock.get(SOON.toSeconds(), TimeUnit.SECONDS);
        Await.until(Duration.ofSeconds(10), "lock '" + name + "' is free in the backend", () -> !lockedInBackend(name));
    }

    /**
     * Issue 28 (claims without a test): {@code tryLock(time, unit)} and {@code lockInterruptibly()} are interruptible,
     * as {@link java.util.concurrent.locks.Lock} has them: a thread interrupted while it waits in the backend throws
     * {@link InterruptedException}, holds nothing and leaves nothing queued (a fresh attempt of zero wait gets the lock
     * once it is released, which a leftover queue entry ahead of it would refuse).
     */
    @Test
    void tryLockWithATimeAndLockInterruptiblyThrowWhenInterruptedAndLeaveNothingBehind() throws Exception {
        String name = uniqueName();
        DistributedLock waiterLock = lockOf(newClient(), name);
        List<java.util.concurrent.Callable<?>> waits = List.of(
                () -> waiterLock.tryLock(5, TimeUnit.MINUTES),
                () -> {
                    waiterLock.lockInterruptibly();
                    return true;
                });
        for (java.util.concurrent.Callable<?> wait : waits) {
            Lease held = lockOf(newClient(), name, lease(longLease(), false)).acquire();
            AtomicReference<Thread> waiterThread = new AtomicReference<>();
            Future<Throwable> waiter = inBackground(() -> {
                waiterThread.set(Thread.currentThread());
                try {
                    wait.call();
                    return null;
                } catch (Throwable t) {
                    return t;
                } finally {
                    assertThat(waiterLock.isHeldByCurrentThread()).as("the interrupted thread holds the lock").isFalse();
                }
            });
            awaitWaitingInBackend(waiterThread); // queued, so the interrupt has something of the backend's to undo
            waiterThread.get().interrupt();
            assertThat(waiter.get(SOON.toSeconds(), TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
            held.close();
            Await.until(Duration.ofSeconds(10), "lock '" + name + "' is free in the backend", () -> !lockedInBackend(name));
            Optional<Lease> next = lockOf(newClient(), name).tryAcquire(Duration.ZERO);
            assertThat(next).as("a new attempt finds nothing queued or held before it").isPresent();
            next.get().close();
        }
    }

    /**
     * Issue 28 (claims without a test): {@link Lease#onLost} registered after the loss is told at once. A listener
     * registered once the loss was reported (a force-unlock from another client) gets the same reason.
     */
    @Test
    void aLossListenerRegisteredAfterTheLossIsTold() throws Exception {
        String name = uniqueName();
        Lease held = lockOf(newClient(), name, lease(shortLease().multipliedBy(2), true)).acquire();
        AtomicReference<LeaseLostException> first = new AtomicReference<>();
        held.onLost(first::set);
        assertThat(lockOf(newClient(), name).forceUnlock()).isTrue();
        Await.until(SOON, "the holder is told of the force-unlock", () -> first.get() != null);
        assertThat(held.isValid()).isFalse();
        CountDownLatch told = new CountDownLatch(1);
        AtomicReference<LeaseLostException> late = new AtomicReference<>();
        held.onLost(lost -> {
            late.set(lost);
            told.countDown();
        });
        // "at once": on an event thread, without waiting for anything of the backend; SOON only bounds a broken one
        assertThat(told.await(SOON.toSeconds(), TimeUnit.SECONDS)).as("the listener registered after the loss was told").isTrue();
        assertThat(late.get().reason()).isEqualTo(first.get().reason());
        assertThat(late.get().lockName()).isEqualTo(name);
        held.close(); // quiet
    }

    /**
     * Issue 28 (claims without a test): {@link DistributedLock#forceUnlock()} answers whether the lock was held. On a
     * name never used, and on a lock released before, it answers false and changes nothing; on a held lock true, and
     * a second call false.
     */
    @Test
    void forceUnlockOfAFreeLockAnswersFalse() throws Exception {
        String name = uniqueName();
        DistributedLock admin = lockOf(newClient(), name);
        assertThat(admin.forceUnlock()).as("force-unlock of a name never used").isFalse();
        assertUnlocked(name);
        lockOf(newClient(), name).acquire().close();
        assertThat(admin.forceUnlock()).as("force-unlock of a released lock").isFalse();
        Lease held = lockOf(newClient(), name).acquire();
        assertThat(admin.forceUnlock()).as("force-unlock of a held lock").isTrue();
        assertUnlocked(name);
        assertThat(admin.forceUnlock()).as("a second force-unlock").isFalse();
        held.close(); // quiet
        try (Lease next = lockOf(newClient(), name).acquire(SOON)) {
            assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
        }
    }

    @Test
    void releaseWakesAWaiterOnAnotherClientLongBeforeTheLeaseEnds() throws Exception {
        String name = uniqueName();
        DistributedLock holder = lockOf(newClient(), name, lease(longLease(), false));
        DistributedLock waiterLock = lockOf(newClientWithoutPolling(), name);
        Lease held = holder.acquire();
        Future<Optional<Lease>> waiter = queuedWaiter(waiterLock, SOON);
        held.close();
        Optional<Lease> acquired = wokenWithin(waiter);
        assertThat(acquired).as("the waiter (polling every 5 min) was woken by the release").isPresent();
        assertThat(acquired.get().fencingToken()).isGreaterThan(held.fencingToken());
        acquired.get().close();
    }

    /**
     * Issue 28, finding 21: waiters must not spin. While one waiter (polling every 5 minutes) waits for a lock held
     * with a long lease, the servers answer next to no requests; a waiter that asked again and again would make
     * hundreds in the two seconds measured. Runs where the test class can count the servers' requests.
     */
    @Test
    void aWaiterMakesNoCallsWhileItWaits() throws Exception {
        assumeTrue(serverCalls().isPresent(), "the test class has no counter of the servers' requests");
        String name = uniqueName();
        Lease held = lockOf(newClient(), name, lease(longLease(), false)).acquire();
        Future<Optional<Lease>> waiter = queuedWaiter(lockOf(newClientWithoutPolling(), name), SOON);
        long before = serverCalls().getAsLong();
        TimeUnit.SECONDS.sleep(2); // a measurement window, not a wait for something to happen
        long calls = serverCalls().getAsLong() - before;
        assertThat(calls).as("requests the servers answered in 2 s while one waiter waited").isLessThan(20);
        held.close();
        assertThat(wokenWithin(waiter)).isPresent().get().satisfies(Lease::close);
    }

    @Test
    void aFairLockGrantsWaitersOfDifferentClientsInArrivalOrder() throws Exception {
        assumeTrue(fair(), "the lock under test does not promise arrival order");
        String name = uniqueName();
        Lease held = lockOf(newClient(), name, lease(longLease(), false)).acquire();
        List<Integer> order = new CopyOnWriteArrayList<>();
        List<Future<?>> waiters = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            int index = i;
            DistributedLock lock = lockOf(newClientWithoutPolling(), name);
            AtomicReference<Thread> thread = new AtomicReference<>();
            waiters.add(inBackground(() -> {
                thread.set(Thread.currentThread());
                try (Lease lease = lock.acquire(SOON)) {
                    order.add(index);
                }
                return null;
            }));
            awaitWaitingInBackend(thread); // in the backend's queue before the next one arrives
        }
        held.close();
        for (Future<?> waiter : waiters) {
            waiter.get(SOON.toSeconds() + 10, TimeUnit.SECONDS);
        }
        assertThat(order).as("grant order of waiters that arrived as 0, 1, 2, 3, 4").containsExactly(0, 1, 2, 3, 4);
    }

    /** Returns whether the lock under test grants waiters in arrival order across clients (fair locks; ZooKeeper's and etcd's locks). */
    protected boolean fair() {
        return kind() != LockKind.LOCK || hooks().plainLockIsFair();
    }

    @Test
    void fencingTokensStrictlyIncreaseAcrossClients() throws Exception {
        String name = uniqueName();
        List<DistributedLock> locks = List.of(lockOf(newClient(), name), lockOf(newClient(), name), lockOf(newClient(), name));
        long previous = 0;
        for (int i = 0; i < 30; i++) {
            try (Lease lease = locks.get(i % locks.size()).acquire(Duration.ofSeconds(30))) {
                assertThat(lease.fencingToken()).as("token of acquisition %d", i).isGreaterThan(previous);
                previous = lease.fencingToken();
            }
        }
    }

    @Test
    @Tag(BackendContract.RESTART)
    void fencingTokensKeepIncreasingAcrossAServerRestart() throws Exception {
        String name = uniqueName();
        LockClient client = newClient();
        long before;
        try (Lease lease = lockOf(client, name).acquire()) {
            before = lease.fencingToken();
        }
        backend().restart();
        long afterOnNewClient = Await.succeeds(SOON, "a new client acquires after the restart", () -> {
            try (Lease lease = lockOf(newClient(), name).acquire(Duration.ofSeconds(5))) {
                return lease.fencingToken();
            }
        });
        assertThat(afterOnNewClient).isGreaterThan(before);
        long afterOnOldClient = Await.succeeds(SOON, "the old client recovers after the restart", () -> {
            try (Lease lease = lockOf(client, name).acquire(Duration.ofSeconds(5))) {
                return lease.fencingToken();
            }
        });
        assertThat(afterOnOldClient).isGreaterThan(afterOnNewClient);
    }

    @Test
    void aLeaseMayBeClosedFromAnotherThread() throws Exception {
        String name = uniqueName();
        DistributedLock lock = lockOf(newClient(), name);
        Lease lease = lock.acquire();
        assertThat(lock.isHeldByCurrentThread()).isTrue();
        inBackground(() -> {
            lease.close();
            return null;
        }).get(30, TimeUnit.SECONDS);
        assertThat(lease.isValid()).isFalse();
        assertThat(lease.remaining()).isEqualTo(Duration.ZERO);
        assertThat(lock.isHeldByCurrentThread()).isFalse();
        assertUnlocked(name);
        lease.close();
        assertThat(lockOf(newClient(), name).tryLock()).isTrue();
    }

    @Test
    void badArgumentsAreRejectedWithErrorsNamingTheArgument() {
        LockClient client = newClient();
        assertThatThrownBy(() -> lockOf(client, null)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("name");
        assertThatThrownBy(() -> lockOf(client, "")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("name");
        assertThatThrownBy(() -> lockOf(client, "   ")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("blank");
        assertThatThrownBy(() -> lockOf(client, "x".repeat(100_000))).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at most");
        assertThatThrownBy(() -> lockOf(client, "a\ud800b")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("surrogate");
        assertThatThrownBy(() -> lockOf(client, "a\tb")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("control");
        assertThatThrownBy(() -> lockOf(client, "a", null)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("options");
        assertThatThrownBy(() -> LockOptions.builder().leaseTime(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("leaseTime");
        assertThatThrownBy(() -> LockOptions.builder().leaseTime(Duration.ofSeconds(-1))).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("leaseTime");
        assertThatThrownBy(() -> LockOptions.builder().leaseTime(null)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("leaseTime");
        DistributedLock lock = lockOf(client, uniqueName());
        assertThatThrownBy(() -> lock.tryAcquire(null)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("waitTime");
        assertThatThrownBy(() -> lock.tryAcquire(Duration.ofMillis(-1))).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("waitTime");
        assertThatThrownBy(lock::newCondition).isInstanceOf(UnsupportedOperationException.class);
        assertUnlocked(lock.name());
    }

    @Test
    void isLockedReportsTheBackendState() throws Exception {
        String name = uniqueName();
        DistributedLock lock = lockOf(newClient(), name);
        DistributedLock observer = lockOf(newClient(), name);
        assertThat(observer.isLocked()).isFalse();
        try (Lease ignored = lock.acquire()) {
            assertThat(observer.isLocked()).isTrue();
            assertThat(observer.isHeldByCurrentThread()).isFalse();
        }
        assertThat(observer.isLocked()).isFalse();
    }

    @Test
    void forceUnlockFreesTheLockAndTheHolderLearnsItLostIt() throws Exception {
        String name = uniqueName();
        DistributedLock holderLock = lockOf(newClient(), name, lease(shortLease().multipliedBy(2), true));
        CountDownLatch lost = new CountDownLatch(1);
        AtomicReference<LeaseLostException> report = new AtomicReference<>();
        holderLock.lock();
        Lease held = holderLock.heldLease();
        held.onLost(e -> {
            report.set(e);
            lost.countDown();
        });
        assertThat(lockOf(newClient(), name).forceUnlock()).isTrue();
        assertThat(lost.await(SOON.toSeconds(), TimeUnit.SECONDS)).as("onLost fired (at the next renewal)").isTrue();
        assertThat(report.get().lockName()).isEqualTo(name);
        assertThat(report.get().reason()).isEqualTo(tellsForceUnlocks() ? Reason.FORCE_UNLOCKED : Reason.SERVER_LOST_LOCK);
        DistributedLock next = lockOf(newClient(), name);
        Lease nextLease = next.acquire(SOON);
        assertThat(held.isValid()).isFalse();
        assertThatThrownBy(holderLock::unlock).isInstanceOf(LeaseLostException.class).hasMessageContaining(name);
        assertThat(holderLock.isHeldByCurrentThread()).isFalse();
        assertLocked(name);
        assertThat(nextLease.isValid()).isTrue();
        assertThat(nextLease.fencingToken()).isGreaterThan(held.fencingToken());
        nextLease.close();
        assertUnlocked(name);
    }

    @Test
    void forceUnlockWakesAParkedWaiter() throws Exception {
        String name = uniqueName();
        Lease held = lockOf(newClient(), name, lease(longLease(), false)).acquire();
        DistributedLock waiterLock = lockOf(newClientWithoutPolling(), name);
        Future<Optional<Lease>> waiter = queuedWaiter(waiterLock, SOON);
        assertThat(lockOf(newClient(), name).forceUnlock()).isTrue();
        Optional<Lease> acquired = wokenWithin(waiter);
        assertThat(acquired).as("the waiter (polling every 5 min) was woken by the force-unlock").isPresent();
        assertThat(acquired.get().fencingToken()).isGreaterThan(held.fencingToken());
        acquired.get().close();
        held.close(); // quiet: its loss was reported
    }

    @Test
    void anyValidNameWorksBracesUnicodeAndTheLongest() throws Exception {
        String unique = uniqueName();
        List<String> names = List.of("}" + unique, unique + "{", "{}" + unique, "{" + unique + "}", "a}{b" + unique,
                "Bestellung-\u00e4\u00f6\u00fc-\u6ce8\u6587-\ud83d\udd12-" + unique,
                (unique + "-" + "x".repeat(1024)).substring(0, 1024));
        LockClient client = newClient();
        LockClient other = newClient();
        for (String name : names) {
            try (Lease lease = lockOf(client, name).acquire(Duration.ofSeconds(5))) {
                assertLocked(name);
                assertThat(lockOf(other, name).isLocked()).as("isLocked of %s", name).isTrue();
                assertThat(lockOf(other, name).tryAcquire(Duration.ZERO)).as("a second holder of %s", name).isEmpty();
                assertThat(lease.isValid()).isTrue();
            }
            assertUnlocked(name);
            Lease again = lockOf(client, name).acquire(Duration.ofSeconds(5));
            assertThat(lockOf(other, name).forceUnlock()).as("force-unlock of %s", name).isTrue();
            assertUnlocked(name);
            again.close(); // quiet
        }
        String tricky = names.get(0);
        Lease held = lockOf(client, tricky, lease(longLease(), false)).acquire();
        DistributedLock waiterLock = lockOf(newClientWithoutPolling(), tricky);
        Future<Optional<Lease>> waiter = queuedWaiter(waiterLock, SOON);
        held.close();
        assertThat(wokenWithin(waiter)).as("a waiter on %s is woken by the release", tricky)
                .isPresent().get().satisfies(Lease::close);
    }

    @Test
    void closingTheClientReleasesItsLocksTellsTheirHoldersAndRejectsFurtherUse() throws Exception {
        LockClient client = newClient();
        String first = uniqueName();
        String second = uniqueName();
        DistributedLock lock = lockOf(client, first);
        lock.lock();
        Lease lease = lockOf(client, second).acquire();
        List<LeaseLostException> told = new CopyOnWriteArrayList<>();
        lease.onLost(told::add);
        client.close();
        assertUnlocked(first);
        assertUnlocked(second);
        assertThat(lease.isValid()).isFalse();
        Await.until(SOON, "the lease's listener is told", () -> told.size() == 1);
        assertThat(told.get(0).reason()).isEqualTo(Reason.CLIENT_CLOSED);
        assertThatThrownBy(lock::unlock).as("the owner's unlock after close").isInstanceOf(LeaseLostException.class);
        client.close(); // idempotent
        lease.close();
        assertThatThrownBy(() -> lockOf(client, first)).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
        assertThatThrownBy(lock::acquire).isInstanceOf(IllegalStateException.class);
    }

    @Test
    @Tag(BackendContract.RESTART)
    void anUnreachableBackendFailsFastWithBackendUnavailableAndTheClientRecovers() throws Exception {
        String name = uniqueName();
        LockClient client = newClient();
        DistributedLock lock = lockOf(client, name);
        try (Lease lease = lock.acquire()) {
            assertThat(lease.isValid()).isTrue();
        }
        backend().stop();
        try {
            // each call fails within the clients' 1 s operation timeout (plus a grace), never hangs
            assertTimeoutPreemptively(Duration.ofSeconds(15), () -> {
                assertThatThrownBy(() -> lock.tryAcquire(Duration.ofSeconds(1))).isInstanceOf(BackendUnavailableException.class);
                assertThatThrownBy(lock::isLocked).isInstanceOf(BackendUnavailableException.class);
                assertThatThrownBy(this::newClient).isInstanceOf(BackendUnavailableException.class);
            });
        } finally {
            backend().start();
        }
        long token = Await.succeeds(SOON, "the client works again after the server is back", () -> {
            try (Lease lease = lock.acquire(Duration.ofSeconds(5))) {
                return lease.fencingToken();
            }
        });
        assertThat(token).isPositive();
        assertUnlocked(name);
    }

    @Test
    @EnabledForJreRange(min = JRE.JAVA_21)
    void virtualThreadsAcquireAndReleaseOnDifferentThreads() throws Exception {
        String name = uniqueName();
        LockClient client = newClient();
        ExecutorService virtual = (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
        int tasks = 40;
        int[] unprotected = {0};
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        try {
            List<Future<?>> results = new ArrayList<>();
            for (int i = 0; i < tasks; i++) {
                results.add(virtual.submit(() -> {
                    Lease lease = lockOf(client, name).acquire(Duration.ofMinutes(2));
                    if (inside.incrementAndGet() != 1) {
                        overlaps.incrementAndGet();
                    }
                    unprotected[0]++;
                    inside.decrementAndGet();
                    // hand the lease to another virtual thread to close
                    virtual.submit(lease::close).get();
                    return null;
                }));
            }
            for (Future<?> result : results) {
                result.get(3, TimeUnit.MINUTES);
            }
        } finally {
            virtual.shutdownNow();
        }
        assertThat(overlaps.get()).isZero();
        assertThat(unprotected[0]).isEqualTo(tasks);
        assertUnlocked(name);
    }
}
