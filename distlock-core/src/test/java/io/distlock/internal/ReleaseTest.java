package io.distlock.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.DistributedLock;
import io.distlock.Lease;
import io.distlock.LeaseLostException;
import io.distlock.LeaseLostException.Reason;
import io.distlock.LockClient;
import io.distlock.LockException;
import io.distlock.internal.MemoryStore.Op;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Releases, force-unlocks and abandoned requests, with replies held back where the timing matters. */
class ReleaseTest {
    private final MemoryStore store = new MemoryStore();
    private final List<LockClient> clients = new CopyOnWriteArrayList<>();
    private final ExecutorService threads = Executors.newCachedThreadPool();

    private LockClient client() {
        LockClient client = MemoryLockClients.polling(store, Duration.ofMillis(500), Duration.ofSeconds(1));
        clients.add(client);
        return client;
    }

    @AfterEach
    void closeAll() {
        store.resume();
        store.deliverReplies();
        threads.shutdownNow();
        clients.forEach(LockClient::close);
    }

    private static Thread.State stateOf(AtomicReference<Thread> thread) {
        Thread t = thread.get();
        return t == null ? Thread.State.NEW : t.getState();
    }

    @Test
    void forceUnlockMarksTheHolderItSawBeforeTheCallNotOneHandedTheLockMeanwhile() throws Exception {
        LockClient client = client();
        DistributedLock lock = client.getLock("a");
        Lease first = lock.acquire();
        AtomicReference<Thread> waiterThread = new AtomicReference<>();
        Future<Lease> second = threads.submit(() -> {
            waiterThread.set(Thread.currentThread());
            return lock.acquire(Duration.ofSeconds(20)); // queued at the local gate
        });
        Awaiting.until(() -> stateOf(waiterThread) == Thread.State.WAITING || stateOf(waiterThread) == Thread.State.TIMED_WAITING);

        store.holdReplies(Op.FORCE_RELEASE);
        Future<Boolean> forcing = threads.submit(lock::forceUnlock); // applied now, answered later
        Awaiting.until(() -> store.heldReplyCount() == 1);
        first.close();                                // the waiter is handed the lock ...
        Lease handedOn = second.get(10, TimeUnit.SECONDS);
        store.deliverReplies();                       // ... before the force-unlock's answer arrives
        assertThat(forcing.get(10, TimeUnit.SECONDS)).isTrue();

        assertThat(handedOn.isValid()).as("the lock handed on after the force-unlock ran is not marked lost").isTrue();
        handedOn.close();
    }

    @Test
    void aLeaseWhoseReleaseIsOnTheWayIsNoLongerValid() throws Exception {
        DistributedLock lock = client().getLock("a");
        AtomicReference<Lease> lease = new AtomicReference<>();
        java.util.concurrent.CountDownLatch unlockNow = new java.util.concurrent.CountDownLatch(1);
        Future<?> holder = threads.submit(() -> {
            lease.set(lock.acquire());
            unlockNow.await();
            lock.unlock(); // the last hold: sends the release, waits for its answer
            return null;
        });
        Awaiting.until(() -> lease.get() != null);
        store.holdReplies(Op.RELEASE);
        unlockNow.countDown();
        Awaiting.until(() -> store.heldReplyCount() == 1);
        Optional<Lease> next = client().getLock("a").tryAcquire(Duration.ZERO);
        assertThat(next).as("the release ran on the server; another client holds the lock now").isPresent();
        assertThat(lease.get().isValid()).as("the old lease, while its release's answer is on the way").isFalse();
        assertThat(next.get().isValid()).isTrue();
        store.deliverReplies();
        holder.get(10, TimeUnit.SECONDS);
        next.get().close();
    }

    @Test
    void aReleaseRefusedWithAnErrorEndsTheAcquisitionAndOpensTheLock() throws Exception {
        LockClient client = client();
        DistributedLock lock = client.getLock("a");
        Lease held = lock.acquire();
        store.failNext(Op.RELEASE, new LockException("release of lock 'a' was refused: NOPERM"));
        assertThatThrownBy(lock::unlock).isInstanceOf(LockException.class).hasMessageContaining("NOPERM");
        assertThat(held.isValid()).isFalse();
        assertThat(lock.isHeldByCurrentThread()).isFalse();
        long renewals = store.count(Op.RENEW, "a");
        Future<Boolean> other = threads.submit(() -> lock.tryLock(10, TimeUnit.SECONDS));
        assertThat(store.isHeld("a")).as("the server still has it: it expires with its lease").isTrue();
        store.restart();
        assertThat(other.get(10, TimeUnit.SECONDS)).as("another thread of the client gets past the gate").isTrue();
        assertThat(store.count(Op.RENEW, "a")).as("no renewal of the failed release's lease").isEqualTo(renewals);
    }

    @Test
    void aGrantThatArrivesAfterAnInterruptIsReleased() throws Exception {
        LockClient client = client();
        store.pause();
        AtomicReference<Thread> caller = new AtomicReference<>();
        Future<Optional<Lease>> waiting = threads.submit(() -> {
            caller.set(Thread.currentThread());
            return client.getLock("a").tryAcquire(Duration.ofSeconds(30));
        });
        Awaiting.until(() -> store.pausedRequestCount() == 1);
        caller.get().interrupt();
        assertThatThrownBy(() -> waiting.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(InterruptedException.class);
        assertThat(store.isHeld("a")).isFalse();

        store.resume(); // the server runs the request it had: a grant nobody waits for

        Awaiting.until(() -> !store.isHeld("a"));
        assertThat(store.log()).anyMatch(line -> line.startsWith("ACQUIRE a ") && line.contains("granted=true"))
                .anyMatch(line -> line.startsWith("RELEASE a ") && line.endsWith("OWNER"));
    }

    @Test
    void reenteringALostLockThrowsTheRecordedLossWithItsReason() throws Exception {
        LockClient client = client();
        DistributedLock lock = client.getLock("a");
        lock.lock();
        assertThat(client.getLock("a").forceUnlock()).isTrue(); // through the holder's own client: it learns at once
        assertThatThrownBy(lock::lock).isInstanceOf(LeaseLostException.class)
                .satisfies(e -> assertThat(((LeaseLostException) e).reason()).isEqualTo(Reason.FORCE_UNLOCKED));
        assertThatThrownBy(lock::unlock).isInstanceOf(LeaseLostException.class);
        assertThat(lock.isHeldByCurrentThread()).isFalse();
    }

    /**
     * Issue 28 (claims without a test): {@code onLost} registered after the loss is told at once, with the recorded
     * reason, without asking the backend (the store answers nothing meanwhile); one registered after a normal release is
     * never told.
     */
    @Test
    void aLossListenerRegisteredAfterTheLossIsToldAtOnceAndOneAfterAReleaseNever() throws Exception {
        LockClient client = client();
        Lease lost = client.getLock("a").acquire();
        assertThat(client.getLock("a").forceUnlock()).isTrue(); // through the holder's own client: lost at once
        assertThat(lost.isValid()).isFalse();
        store.pause(); // nothing of the backend's can be what tells the listener
        CompletableFuture<LeaseLostException> told = new CompletableFuture<>();
        lost.onLost(told::complete);
        assertThat(told.get(10, TimeUnit.SECONDS).reason()).isEqualTo(Reason.FORCE_UNLOCKED);
        store.resume();

        Lease released = client.getLock("b").acquire();
        released.close();
        List<LeaseLostException> afterRelease = new CopyOnWriteArrayList<>();
        released.onLost(afterRelease::add);
        Lease later = client.getLock("c").acquire(); // a later loss of another lease is told; this one never is
        CompletableFuture<LeaseLostException> laterTold = new CompletableFuture<>();
        later.onLost(laterTold::complete);
        assertThat(client.getLock("c").forceUnlock()).isTrue();
        laterTold.get(10, TimeUnit.SECONDS);
        assertThat(afterRelease).as("a listener registered after a normal release").isEmpty();
    }

    @Test
    void aReplayedReleaseOfTheSameOwnerCountsAsReleased() throws Exception {
        PollingMemoryBackend backend = store.pollingBackend(Duration.ofSeconds(1));
        assertThat(backend.tryAcquire("a", "owner-1", Duration.ofSeconds(5)).get().granted()).isTrue();
        assertThat(backend.release("a", "owner-1").get()).isEqualTo(io.distlock.spi.OwnerCheck.OWNER);
        assertThat(backend.release("a", "owner-1").get()).as("the same request again").isEqualTo(io.distlock.spi.OwnerCheck.OWNER);
        assertThat(backend.release("a", "owner-2").get()).isEqualTo(io.distlock.spi.OwnerCheck.MISSING);
        CompletableFuture<?> ignored = backend.isLocked("a");
        assertThat(ignored.get()).isEqualTo(false);
    }
}
