package io.distlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.DistributedSemaphore;
import io.distlock.Lease;
import io.distlock.LeaseLostException;
import io.distlock.LockAcquireTimeoutException;
import io.distlock.LockClient;
import io.distlock.LockKind;
import io.distlock.servers.Await;
import io.distlock.spi.RefusedUse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.JRE;
import org.junit.jupiter.api.condition.EnabledForJreRange;

/**
 * The contract of semaphores with leased permits: never more holders than permits across clients, an exact
 * count of free permits, permits that come back when their lease ends, increasing tokens, one number of
 * permits per name, and nothing held after a waiter gives up.
 */
public abstract class SemaphoreContract extends ContractSupport {

    /** The tier's kind: it runs where the backend has it, and its raw state is read as this kind's. */
    @Override
    protected final LockKind kind() {
        return LockKind.SEMAPHORE;
    }

    @Test
    void theServersKeepAHeldPermitUntilItsClientClosesAndThenNothingOfIt() throws Exception {
        String name = uniqueName();
        assertTheServersKeepAHeldLockUntilItsClientCloses(name, client -> client.getSemaphore(name, 1, lease(longLease(), false)).acquire(SOON));
    }

    @Test
    void neverMorePermitHoldersThanPermitsAcrossClients() throws Exception {
        String name = uniqueName();
        int permits = 3;
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        List<Future<?>> workers = new ArrayList<>();
        for (int c = 0; c < 4; c++) {
            DistributedSemaphore semaphore = newClient().getSemaphore(name, permits);
            for (int t = 0; t < 3; t++) {
                workers.add(inBackground(() -> {
                    for (int i = 0; i < 10; i++) {
                        try (Lease permit = semaphore.acquire(Duration.ofMinutes(1))) {
                            most.accumulateAndGet(inside.incrementAndGet(), Math::max);
                            TimeUnit.MILLISECONDS.sleep(2); // held long enough that one holder too many would be seen
                            inside.decrementAndGet();
                        }
                    }
                    return null;
                }));
            }
        }
        for (Future<?> worker : workers) {
            worker.get(2, TimeUnit.MINUTES);
        }
        assertThat(most.get()).as("most permit holders at once").isBetween(1, permits);
        assertThat(newClient().getSemaphore(name, permits).availablePermits()).isEqualTo(permits);
    }

    @Test
    void allPermitsCanBeHeldAtOnceAndTheNextWaiterGetsAReleasedOne() throws Exception {
        String name = uniqueName();
        List<Lease> held = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            held.add(newClient().getSemaphore(name, 3).acquire(SOON));
        }
        DistributedSemaphore observer = newClient().getSemaphore(name, 3);
        assertThat(observer.availablePermits()).isZero();
        assertThat(observer.tryAcquire(Duration.ZERO)).as("a fourth permit").isEmpty();
        Future<Optional<Lease>> waiter = inBackground(() -> newClientWithoutPolling().getSemaphore(name, 3).tryAcquire(SOON));
        Await.until(SOON, "the waiter is queued", () -> !waiter.isDone() && observer.availablePermits() == 0);
        Lease freed = held.remove(0);
        freed.close();
        Optional<Lease> next = waiter.get(SOON.toSeconds() + 10, TimeUnit.SECONDS);
        assertThat(next).as("the waiter, woken by the release").isPresent();
        assertThat(next.get().fencingToken()).isGreaterThan(held.get(1).fencingToken());
        assertThat(observer.availablePermits()).isZero();
        next.get().close();
        held.forEach(Lease::close);
        assertThat(observer.availablePermits()).isEqualTo(3);
    }

    /**
     * Issue 28 (claims without a test): semaphore waiters are served in arrival order across clients. Both permits of a
     * two-permit semaphore are held; five waiters of five clients queue, each known queued at the server before the
     * next arrives. Then one permit at a time is released, and each release lets in exactly the next waiter in arrival
     * order: a waiter granted out of turn would hold the freed permit and keep the one whose turn it was out.
     */
    @Test
    void waitersAreGrantedPermitsInArrivalOrder() throws Exception {
        String name = uniqueName();
        List<Lease> holding = new ArrayList<>(List.of(newClient().getSemaphore(name, 2).acquire(SOON), newClient().getSemaphore(name, 2).acquire(SOON)));
        List<Future<Optional<Lease>>> waiters = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            waiters.add(queuedPermitWaiter(newClientWithoutPolling().getSemaphore(name, 2)));
        }
        for (int turn = 0; turn < waiters.size(); turn++) {
            holding.remove(0).close(); // one permit free: the waiter whose turn it is gets it, nobody else
            Optional<Lease> granted = waiters.get(turn).get(SOON.toSeconds(), TimeUnit.SECONDS);
            assertThat(granted).as("waiter %d, granted in its turn", turn).isPresent();
            holding.add(granted.get());
            for (int later = turn + 1; later < waiters.size(); later++) {
                assertThat(waiters.get(later).isDone()).as("waiter %d, granted before waiter %d's turn was over", later, turn).isFalse();
            }
        }
        holding.forEach(Lease::close);
        assertThat(newClient().getSemaphore(name, 2).availablePermits()).isEqualTo(2);
    }

    /** Starts {@code semaphore.tryAcquire(SOON)} on a test thread and returns once it waits in the backend. */
    private Future<Optional<Lease>> queuedPermitWaiter(DistributedSemaphore semaphore) {
        AtomicReference<Thread> thread = new AtomicReference<>();
        Future<Optional<Lease>> waiter = inBackground(() -> {
            thread.set(Thread.currentThread());
            return semaphore.tryAcquire(SOON);
        });
        awaitWaitingInBackend(thread);
        return waiter;
    }

    /**
     * Issue 28 (claims without a test): permit tokens, like the plain lock's, keep increasing across a server restart
     * (on Redis without persistence: the TIME term).
     */
    @Test
    @Tag(BackendContract.RESTART)
    void permitTokensKeepIncreasingAcrossAServerRestart() throws Exception {
        String name = uniqueName();
        DistributedSemaphore semaphore = newClient().getSemaphore(name, 2);
        long before;
        try (Lease first = semaphore.acquire(SOON); Lease second = semaphore.acquire(SOON)) {
            before = Math.max(first.fencingToken(), second.fencingToken());
        }
        backend().restart();
        long afterOnNewClient = Await.succeeds(SOON, "a new client takes a permit after the restart", () -> {
            try (Lease permit = newClient().getSemaphore(name, 2).acquire(Duration.ofSeconds(5))) {
                return permit.fencingToken();
            }
        });
        assertThat(afterOnNewClient).as("a permit token after the restart").isGreaterThan(before);
        long afterOnOldClient = Await.succeeds(SOON, "the old client takes a permit after the restart", () -> {
            try (Lease permit = semaphore.acquire(Duration.ofSeconds(5))) {
                return permit.fencingToken();
            }
        });
        assertThat(afterOnOldClient).isGreaterThan(afterOnNewClient);
    }

    @Test
    void aPermitComesBackWhenItsLeaseRunsOutAndItsHolderIsTold() throws Exception {
        String name = uniqueName();
        DistributedSemaphore semaphore = newClient().getSemaphore(name, 2, lease(shortLease(), false));
        Lease permit = semaphore.acquire(SOON);
        AtomicReference<LeaseLostException> lost = new AtomicReference<>();
        permit.onLost(lost::set);
        DistributedSemaphore observer = newClient().getSemaphore(name, 2);
        assertThat(observer.availablePermits()).isEqualTo(1);
        Await.until(SOON, "the permit's holder is told", () -> lost.get() != null);
        Await.until(SOON, "the permit is free again on the server", () -> observer.availablePermits() == 2);
        assertThat(permit.isValid()).isFalse();
        permit.close(); // nothing to release any more; no error
        assertThat(observer.availablePermits()).isEqualTo(2);
    }

    @Test
    void aRenewedPermitOutlivesItsLeaseTime() throws Exception {
        String name = uniqueName();
        Lease permit = newClient().getSemaphore(name, 1, lease(shortLease(), true)).acquire(SOON);
        DistributedSemaphore other = newClientWithoutPolling().getSemaphore(name, 1);
        Future<Optional<Lease>> waiter = inBackground(() -> other.tryAcquire(shortLease().multipliedBy(4)));
        assertThat(waiter.get(SOON.toSeconds(), TimeUnit.SECONDS)).as("a permit while the only one is renewed").isEmpty();
        assertThat(permit.isValid()).isTrue();
        permit.close();
        assertThat(other.tryAcquire(SOON)).isPresent();
    }

    @Test
    void permitsBelongToNoThreadAndTheirTokensIncrease() throws Exception {
        String name = uniqueName();
        DistributedSemaphore semaphore = newClient().getSemaphore(name, 2);
        Lease first = semaphore.acquire();
        Lease second = semaphore.acquire(SOON);
        assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
        inBackground(() -> {
            first.close();
            return null;
        }).get(SOON.toSeconds(), TimeUnit.SECONDS);
        assertThat(first.isValid()).isFalse();
        assertThat(semaphore.availablePermits()).isEqualTo(1);
        first.close(); // idempotent
        assertThat(semaphore.availablePermits()).isEqualTo(1);
        second.close();
        assertThatCode(() -> semaphore.acquire(Duration.ZERO).close()).as("both permits free again").doesNotThrowAnyException();
    }

    @Test
    void aSemaphoreInUseRefusesAnotherNumberOfPermits() throws Exception {
        String name = uniqueName();
        Lease held = newClient().getSemaphore(name, 3).acquire(SOON);
        DistributedSemaphore other = newClient().getSemaphore(name, 5);
        assertThatThrownBy(() -> other.tryAcquire(Duration.ZERO)).as("the same refusal, in the same words, on every backend")
                .isInstanceOf(RefusedUse.class).hasMessageContaining("semaphore '" + name + "'")
                .hasMessageContaining("in use with 3 permits, asked with 5; every client must use the same number");
        assertThat(newClient().getSemaphore(name, 3).availablePermits()).as("the refused call changed nothing").isEqualTo(2);
        held.close();
        try (Lease now = other.acquire(SOON)) {
            assertThat(other.availablePermits()).as("an idle semaphore takes the new number").isEqualTo(4);
        }
    }

    @Test
    void anInterruptedWaiterHoldsNoPermit() throws Exception {
        String name = uniqueName();
        Lease only = newClient().getSemaphore(name, 1).acquire(SOON);
        DistributedSemaphore semaphore = newClient().getSemaphore(name, 1);
        AtomicReference<Thread> thread = new AtomicReference<>();
        java.util.concurrent.CountDownLatch ended = new java.util.concurrent.CountDownLatch(1);
        Future<Lease> waiter = inBackground(() -> {
            thread.set(Thread.currentThread());
            try {
                return semaphore.acquire();
            } finally {
                ended.countDown();
            }
        });
        awaitWaitingInBackend(thread); // queued, so the interrupt has something of the backend's to undo
        waiter.cancel(true);
        assertThat(ended.await(SOON.toSeconds(), TimeUnit.SECONDS)).as("the interrupted waiter returned").isTrue();
        only.close();
        DistributedSemaphore observer = newClient().getSemaphore(name, 1);
        Await.until(SOON, "the released permit is free, not taken by the interrupted waiter", () -> observer.availablePermits() == 1);
        assertThat(observer.tryAcquire(SOON)).isPresent();
    }

    @Test
    void badArgumentsAreRejectedNamingThem() {
        LockClient client = newClient();
        assertThatThrownBy(() -> client.getSemaphore(uniqueName(), 0)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("permits");
        assertThatThrownBy(() -> client.getSemaphore(uniqueName(), -2)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("permits");
        assertThatThrownBy(() -> client.getSemaphore(" ", 1)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("blank");
        assertThatThrownBy(() -> client.getSemaphore("s", 1, null)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("options");
        DistributedSemaphore semaphore = client.getSemaphore(uniqueName(), 1);
        assertThatThrownBy(() -> semaphore.tryAcquire(Duration.ofSeconds(-1))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("waitTime");
        assertThatThrownBy(() -> semaphore.acquire(null)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("waitTime");
    }

    @Test
    void aWaitThatRunsOutThrowsNamingTheSemaphore() throws Exception {
        String name = uniqueName();
        Lease only = newClient().getSemaphore(name, 1).acquire(SOON);
        assertThatThrownBy(() -> newClient().getSemaphore(name, 1).acquire(Duration.ofMillis(50)))
                .isInstanceOf(LockAcquireTimeoutException.class).hasMessageContaining(name);
        only.close();
    }

    /** Permits on virtual threads (JDK 21+), each closed on another virtual thread: never more holders than permits. */
    @Test
    @EnabledForJreRange(min = JRE.JAVA_21)
    void virtualThreadsTakePermitsAndReleaseThemOnOtherThreads() throws Exception {
        String name = uniqueName();
        DistributedSemaphore semaphore = newClient().getSemaphore(name, 3);
        java.util.concurrent.ExecutorService virtual =
                (java.util.concurrent.ExecutorService) java.util.concurrent.Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        try {
            List<Future<?>> tasks = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                tasks.add(virtual.submit(() -> {
                    Lease permit = semaphore.acquire(Duration.ofMinutes(2));
                    most.accumulateAndGet(inside.incrementAndGet(), Math::max);
                    TimeUnit.MILLISECONDS.sleep(1);
                    inside.decrementAndGet();
                    virtual.submit(permit::close).get(); // closed on another virtual thread
                    return null;
                }));
            }
            for (Future<?> task : tasks) {
                task.get(3, TimeUnit.MINUTES);
            }
        } finally {
            virtual.shutdownNow();
        }
        assertThat(most.get()).as("most permit holders at once").isBetween(1, 3);
        assertThat(semaphore.availablePermits()).isEqualTo(3);
    }
}
