package io.distlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.distlock.BackendUnavailableException;
import io.distlock.DistributedLock;
import io.distlock.Lease;
import io.distlock.LeaseLostException;
import io.distlock.LockAcquireTimeoutException;
import io.distlock.LockClient;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;

/**
 * The contract every backend honours: mutual exclusion, reentrancy, ownership, waiting, timeouts,
 * interruption, fencing tokens, loss reporting, bad input and outages. A backend's test class extends
 * the tier that matches its capabilities and supplies the hooks; it copies no test bodies.
 */
public abstract class LockContract {
    /** A generous bound for things that must happen "soon"; only a broken implementation hits it. */
    protected static final Duration SOON = Duration.ofSeconds(20);

    private final List<LockClient> clients = new CopyOnWriteArrayList<>();
    private final List<Future<?>> background = new CopyOnWriteArrayList<>();
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private String testName = "test";
    private final AtomicInteger names = new AtomicInteger();

    /** Returns the factory class of the backend's clients (public, no-argument constructor). */
    protected abstract Class<? extends LockClientFactory> factoryClass();

    /** Returns the servers under test: usually the deployment extension the test class registers. */
    protected abstract TestDeployment deployment();

    /** Returns whether the backend's own state (read directly, not through distlock) shows the lock held. */
    protected abstract boolean lockedInBackend(String name);

    @BeforeEach
    void rememberTestName(TestInfo info) {
        testName = info.getTestMethod().map(m -> m.getName()).orElse("test");
    }

    @AfterEach
    void closeClients() {
        background.forEach(f -> f.cancel(true));
        threads.shutdownNow();
        clients.forEach(LockClient::close);
    }

    /** Returns where the servers are, in the factory's terms (a URI or connect string). */
    protected String target() {
        return deployment().target();
    }

    /** Returns fault injection on the servers. */
    protected BackendControl backend() {
        return deployment().control();
    }

    /** Returns a new client to the test server with {@link ClientSettings#DEFAULTS}, closed after the test. */
    protected LockClient newClient() {
        return newClient(ClientSettings.DEFAULTS);
    }

    /** Returns a new client to the test server with these settings, closed after the test. */
    protected LockClient newClient(ClientSettings settings) {
        LockClientFactory factory;
        try {
            factory = factoryClass().getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot instantiate " + factoryClass(), e);
        }
        LockClient client = factory.create(target(), settings);
        clients.add(client);
        return client;
    }

    /** Returns a lock name unique to this test run. */
    protected String uniqueName() {
        return testName + "-" + System.nanoTime() + "-" + names.incrementAndGet();
    }

    /**
     * Returns a lease longer than any wait in these tests, within what the backend allows: session-bound
     * backends (ZooKeeper) cap leases at their session timeout and override this.
     */
    protected Duration longLease() {
        return Duration.ofSeconds(120);
    }

    /** Returns options with this lease time and renewal setting. */
    protected static LockOptions lease(Duration leaseTime, boolean autoRenew) {
        return LockOptions.builder().leaseTime(leaseTime).autoRenew(autoRenew).build();
    }

    /** Asserts, from the backend's own state, that the lock is held by someone. */
    protected void assertLocked(String name) {
        assertThat(lockedInBackend(name)).as("backend state of lock '%s' shows it held", name).isTrue();
    }

    /** Asserts, from the backend's own state, that the lock is free. */
    protected void assertUnlocked(String name) {
        assertThat(lockedInBackend(name)).as("backend state of lock '%s' shows it free", name).isFalse();
    }

    /** Runs {@code task} on a test thread; cancelled (interrupted) after the test. */
    protected <T> Future<T> inBackground(java.util.concurrent.Callable<T> task) {
        Future<T> future = threads.submit(task);
        background.add(future);
        return future;
    }

    /** Waits until the thread in {@code waiter} is parked (waiting for the lock). */
    protected static void awaitParked(AtomicReference<Thread> waiter) {
        Await.until(SOON, "the waiter is parked", () -> {
            Thread thread = waiter.get();
            if (thread == null) {
                return false;
            }
            Thread.State state = thread.getState();
            return state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING;
        });
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
                    DistributedLock lock = client.getLock(name);
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
        DistributedLock lock = newClient().getLock(name);
        DistributedLock other = newClient().getLock(name);
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
    void unlockByAThreadOrClientThatDoesNotHoldTheLockThrowsAndReleasesNothing() throws Exception {
        String name = uniqueName();
        DistributedLock lock = newClient().getLock(name);
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
        assertThatThrownBy(() -> newClient().getLock(name).unlock()).isInstanceOf(IllegalMonitorStateException.class);
        assertLocked(name);
        assertThat(lock.isHeldByCurrentThread()).isTrue();
        lock.unlock();
        assertUnlocked(name);
    }

    @Test
    void tryAcquireGivesUpAfterItsWaitTimeWhileAnotherClientHolds() throws Exception {
        String name = uniqueName();
        DistributedLock holder = newClient().getLock(name);
        DistributedLock waiter = newClient().getLock(name);
        try (Lease held = holder.acquire()) {
            assertThat(waiter.tryAcquire(Duration.ofMillis(300))).isEmpty();
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
    void interruptedWaiterThrowsAndLeavesNothingHeld() throws Exception {
        String name = uniqueName();
        DistributedLock holder = newClient().getLock(name);
        DistributedLock waiterLock = newClient().getLock(name);
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
        awaitParked(waiterThread);
        waiterThread.get().interrupt();
        assertThat(waiter.get(30, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
        held.close();
        assertUnlocked(name);
        assertThat(waiterLock.isHeldByCurrentThread()).isFalse();
        assertThat(newClient().getLock(name).tryAcquire(Duration.ZERO)).as("nobody leaked a grant").isPresent();
    }

    @Test
    void releaseWakesAWaiterOnAnotherClientLongBeforeTheLeaseEnds() throws Exception {
        String name = uniqueName();
        DistributedLock holder = newClient().getLock(name, lease(longLease(), false));
        DistributedLock waiterLock = newClient().getLock(name);
        Lease held = holder.acquire();
        AtomicReference<Thread> waiterThread = new AtomicReference<>();
        Future<Optional<Lease>> waiter = inBackground(() -> {
            waiterThread.set(Thread.currentThread());
            return waiterLock.tryAcquire(Duration.ofSeconds(60));
        });
        awaitParked(waiterThread);
        held.close();
        Optional<Lease> acquired = waiter.get(90, TimeUnit.SECONDS);
        assertThat(acquired).as("waiter acquired after the release, within 60 s of a 120 s lease").isPresent();
        assertThat(acquired.get().fencingToken()).isGreaterThan(held.fencingToken());
        acquired.get().close();
    }

    @Test
    void fencingTokensStrictlyIncreaseAcrossClients() throws Exception {
        String name = uniqueName();
        List<DistributedLock> locks = List.of(newClient().getLock(name), newClient().getLock(name), newClient().getLock(name));
        long previous = 0;
        for (int i = 0; i < 30; i++) {
            try (Lease lease = locks.get(i % locks.size()).acquire(Duration.ofSeconds(30))) {
                assertThat(lease.fencingToken()).as("token of acquisition %d", i).isGreaterThan(previous);
                previous = lease.fencingToken();
            }
        }
    }

    @Test
    void fencingTokensKeepIncreasingAcrossAServerRestart() throws Exception {
        String name = uniqueName();
        LockClient client = newClient();
        long before;
        try (Lease lease = client.getLock(name).acquire()) {
            before = lease.fencingToken();
        }
        backend().restart();
        long afterOnNewClient = Await.succeeds(SOON, "a new client acquires after the restart", () -> {
            try (Lease lease = newClient().getLock(name).acquire(Duration.ofSeconds(5))) {
                return lease.fencingToken();
            }
        });
        assertThat(afterOnNewClient).isGreaterThan(before);
        long afterOnOldClient = Await.succeeds(SOON, "the old client recovers after the restart", () -> {
            try (Lease lease = client.getLock(name).acquire(Duration.ofSeconds(5))) {
                return lease.fencingToken();
            }
        });
        assertThat(afterOnOldClient).isGreaterThan(afterOnNewClient);
    }

    @Test
    void aLeaseMayBeClosedFromAnotherThread() throws Exception {
        String name = uniqueName();
        DistributedLock lock = newClient().getLock(name);
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
        assertThat(newClient().getLock(name).tryLock()).isTrue();
    }

    @Test
    void badArgumentsAreRejectedWithErrorsNamingTheArgument() {
        LockClient client = newClient();
        assertThatThrownBy(() -> client.getLock(null)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("name");
        assertThatThrownBy(() -> client.getLock("")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("name");
        assertThatThrownBy(() -> client.getLock("   ")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("blank");
        assertThatThrownBy(() -> client.getLock("x".repeat(100_000))).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at most");
        assertThatThrownBy(() -> client.getLock("a", null)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("options");
        assertThatThrownBy(() -> LockOptions.builder().leaseTime(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("leaseTime");
        assertThatThrownBy(() -> LockOptions.builder().leaseTime(Duration.ofSeconds(-1))).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("leaseTime");
        assertThatThrownBy(() -> LockOptions.builder().leaseTime(null)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("leaseTime");
        DistributedLock lock = client.getLock(uniqueName());
        assertThatThrownBy(() -> lock.tryAcquire(null)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("waitTime");
        assertThatThrownBy(() -> lock.tryAcquire(Duration.ofMillis(-1))).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("waitTime");
        assertThatThrownBy(lock::newCondition).isInstanceOf(UnsupportedOperationException.class);
        assertUnlocked(lock.name());
    }

    @Test
    void isLockedReportsTheBackendState() throws Exception {
        String name = uniqueName();
        DistributedLock lock = newClient().getLock(name);
        DistributedLock observer = newClient().getLock(name);
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
        DistributedLock holderLock = newClient().getLock(name, lease(Duration.ofMillis(900), true));
        CountDownLatch lost = new CountDownLatch(1);
        AtomicReference<LeaseLostException> report = new AtomicReference<>();
        holderLock.lock();
        Lease held = holderLock.heldLease();
        held.onLost(e -> {
            report.set(e);
            lost.countDown();
        });
        assertThat(newClient().getLock(name).forceUnlock()).isTrue();
        DistributedLock next = newClient().getLock(name);
        Lease nextLease = next.acquire(SOON);
        assertThat(lost.await(SOON.toSeconds(), TimeUnit.SECONDS)).as("onLost fired").isTrue();
        assertThat(report.get().lockName()).isEqualTo(name);
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
    void closingTheClientReleasesItsLocksAndRejectsFurtherUse() throws Exception {
        LockClient client = newClient();
        String first = uniqueName();
        String second = uniqueName();
        DistributedLock lock = client.getLock(first);
        lock.lock();
        Lease lease = client.getLock(second).acquire();
        client.close();
        assertUnlocked(first);
        assertUnlocked(second);
        assertThat(lease.isValid()).isFalse();
        client.close(); // idempotent
        lease.close();
        assertThatThrownBy(() -> client.getLock(first)).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
        assertThatThrownBy(lock::acquire).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void anUnreachableBackendFailsFastWithBackendUnavailableAndTheClientRecovers() throws Exception {
        String name = uniqueName();
        LockClient client = newClient();
        DistributedLock lock = client.getLock(name);
        try (Lease lease = lock.acquire()) {
            assertThat(lease.isValid()).isTrue();
        }
        backend().stop();
        try {
            assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
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
                    Lease lease = client.getLock(name).acquire(Duration.ofMinutes(2));
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
