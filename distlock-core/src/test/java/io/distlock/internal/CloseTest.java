package io.distlock.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.distlock.DistributedLock;
import io.distlock.Lease;
import io.distlock.LeaseLostException;
import io.distlock.LeaseLostException.Reason;
import io.distlock.LockClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Closing a client: bounded however many leases it holds, every lease told, waiters woken. */
class CloseTest {
    private final MemoryStore store = new MemoryStore();
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @AfterEach
    void stop() {
        store.resume();
        threads.shutdownNow();
    }

    @Test
    void closingDuringAnOutageReturnsWithinAboutOneOperationTimeoutAndTellsEveryLease() throws Exception {
        Duration operationTimeout = Duration.ofSeconds(1);
        LockClient client = MemoryLockClients.polling(store, operationTimeout, Duration.ofSeconds(1));
        int count = 1000;
        List<Lease> leases = new ArrayList<>();
        List<LeaseLostException> told = new CopyOnWriteArrayList<>();
        for (int i = 0; i < count; i++) {
            Lease lease = client.getLock("close-" + i).acquire();
            lease.onLost(told::add);
            leases.add(lease);
        }
        DistributedLock threadBound = client.getLock("thread-bound");
        threadBound.lock();
        store.pause(); // releases reach a server that does not answer

        // The claim: close() takes about one operation timeout, however many leases. The bound is ten timeouts, a
        // generous margin for a loaded machine, not a speed target: a close that waited one timeout per lease (one
        // release after another) would take count x 1 s = 1,000 s, a hundred times the bound.
        assertTimeoutPreemptively(operationTimeout.multipliedBy(10), client::close);

        Awaiting.until(() -> told.size() == count);
        assertThat(told).allSatisfy(lost -> assertThat(lost.reason()).isEqualTo(Reason.CLIENT_CLOSED));
        assertThat(leases).noneMatch(Lease::isValid);
        assertThatThrownBy(threadBound::unlock).as("the owner's unlock learns why the lock is gone")
                .isInstanceOf(LeaseLostException.class)
                .satisfies(e -> assertThat(((LeaseLostException) e).reason()).isEqualTo(Reason.CLIENT_CLOSED));
        leases.forEach(Lease::close); // quiet
        store.resume(); // the server answers the releases it was sent
        for (int i = 0; i < count; i++) {
            assertThat(store.isHeld("close-" + i)).isFalse();
        }
        assertThat(store.isHeld("thread-bound")).isFalse();
    }

    @Test
    void threadsWaitingToAcquireWakeUpWhenTheClientClosesAndFindItClosed() throws Exception {
        LockClient holderClient = MemoryLockClients.polling(store, Duration.ofSeconds(1), Duration.ofMinutes(5));
        LockClient client = MemoryLockClients.polling(store, Duration.ofSeconds(1), Duration.ofMinutes(5));
        Lease held = holderClient.getLock("a").acquire();
        List<AtomicReference<Thread>> waiters = new ArrayList<>();
        List<Future<Throwable>> outcomes = new ArrayList<>();
        for (int i = 0; i < 3; i++) { // the first waits on the backend, the others at the local gate
            AtomicReference<Thread> waiter = new AtomicReference<>();
            waiters.add(waiter);
            outcomes.add(threads.submit(() -> {
                waiter.set(Thread.currentThread());
                try {
                    client.getLock("a").lock();
                    return null;
                } catch (Throwable t) {
                    return t;
                }
            }));
        }
        Awaiting.until(() -> waiters.stream().allMatch(w -> w.get() != null
                && (w.get().getState() == Thread.State.WAITING || w.get().getState() == Thread.State.TIMED_WAITING)));

        client.close();

        for (Future<Throwable> outcome : outcomes) {
            assertThat(outcome.get(10, TimeUnit.SECONDS)).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
        }
        assertThat(held.isValid()).isTrue();
        held.close();
        holderClient.close();
    }
}
