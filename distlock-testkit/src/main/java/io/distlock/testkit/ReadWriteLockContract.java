package io.distlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.DistributedLock;
import io.distlock.DistributedReadWriteLock;
import io.distlock.Lease;
import io.distlock.LeaseLostException;
import io.distlock.LockClient;
import io.distlock.LockKind;
import io.distlock.servers.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.JRE;
import org.junit.jupiter.api.condition.EnabledForJreRange;

/**
 * The contract of read-write locks, on top of {@link LockContract} run with {@link LockKind#READ_WRITE_LOCK} (its write side) (the
 * write side is an exclusive lock like any other): readers share, a writer excludes everyone, the queue
 * prefers a waiting writer over later readers, readers at the head are granted together, downgrade is
 * atomic, upgrade is refused, write tokens exceed every earlier token, and one reader's lost lease touches
 * no other reader.
 */
public abstract class ReadWriteLockContract extends ContractSupport {

    /** The tier's kind: it runs where the backend has it, and its raw state is read as this kind's. */
    @Override
    protected final LockKind kind() {
        return LockKind.READ_WRITE_LOCK;
    }


    private DistributedReadWriteLock readWrite(LockClient client, String name) {
        return client.getReadWriteLock(name);
    }

    @Test
    void readersOfDifferentClientsAndThreadsHoldTogether() throws Exception {
        String name = uniqueName();
        List<Lease> readers = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            readers.add(readWrite(newClient(), name).readLock().acquire(SOON));
        }
        DistributedLock sameClient = readWrite(newClient(), name).readLock();
        Future<Lease> onAnotherThread = inBackground(() -> sameClient.acquire(SOON));
        readers.add(onAnotherThread.get(SOON.toSeconds(), TimeUnit.SECONDS));
        readers.add(sameClient.acquire(SOON));
        assertThat(readers).allMatch(Lease::isValid);
        assertThat(readWrite(newClient(), name).readLock().isLocked()).isTrue();
        assertThat(readWrite(newClient(), name).writeLock().isLocked()).as("no writer holds").isFalse();
        assertThat(readWrite(newClient(), name).writeLock().tryAcquire(Duration.ZERO)).as("a writer while readers hold").isEmpty();
        readers.forEach(Lease::close);
        assertThat(readWrite(newClient(), name).writeLock().tryAcquire(SOON)).as("a writer once all readers left").isPresent();
    }

    @Test
    void aWriterExcludesReadersAndTheyGetInWhenItLeaves() throws Exception {
        String name = uniqueName();
        Lease writer = readWrite(newClient(), name).writeLock().acquire(SOON);
        assertThat(readWrite(newClient(), name).readLock().tryAcquire(Duration.ZERO)).as("a reader while the writer holds").isEmpty();
        assertThat(readWrite(newClient(), name).readLock().isLocked()).as("no reader holds").isFalse();
        Future<Optional<Lease>> reader = queuedWaiter(readWrite(newClientWithoutPolling(), name).readLock(), SOON);
        writer.close();
        Optional<Lease> read = reader.get(SOON.toSeconds() + 10, TimeUnit.SECONDS);
        assertThat(read).as("the reader, woken by the writer's release").isPresent();
        assertThat(read.get().fencingToken()).isGreaterThan(writer.fencingToken());
        read.get().close();
    }

    @Test
    void readersAtTheHeadOfTheQueueAreGrantedTogether() throws Exception {
        String name = uniqueName();
        Lease writer = readWrite(newClient(), name).writeLock().acquire(SOON);
        CountDownLatch allIn = new CountDownLatch(3);
        CountDownLatch leave = new CountDownLatch(1);
        List<Future<?>> readers = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            DistributedLock read = readWrite(newClientWithoutPolling(), name).readLock();
            AtomicReference<Thread> thread = new AtomicReference<>();
            readers.add(inBackground(() -> {
                thread.set(Thread.currentThread());
                try (Lease lease = read.acquire(SOON)) {
                    allIn.countDown();
                    leave.await(); // every reader holds until all three are in
                }
                return null;
            }));
            awaitWaitingInBackend(thread);
        }
        writer.close();
        assertThat(allIn.await(SOON.toSeconds(), TimeUnit.SECONDS)).as("three queued readers hold at once").isTrue();
        leave.countDown();
        for (Future<?> reader : readers) {
            reader.get(SOON.toSeconds(), TimeUnit.SECONDS);
        }
    }

    @Test
    void aWaitingWriterIsNotOvertakenByLaterReaders() throws Exception {
        String name = uniqueName();
        Lease firstReader = readWrite(newClient(), name).readLock().acquire(SOON);
        Future<Optional<Lease>> writer = queuedWaiter(readWrite(newClientWithoutPolling(), name).writeLock(), SOON);
        assertThat(readWrite(newClient(), name).readLock().tryAcquire(Duration.ZERO))
                .as("a reader arriving while a writer waits queues behind it").isEmpty();
        Future<Optional<Lease>> laterReader = queuedWaiter(readWrite(newClientWithoutPolling(), name).readLock(), SOON);
        firstReader.close();
        Optional<Lease> written = writer.get(SOON.toSeconds() + 10, TimeUnit.SECONDS);
        assertThat(written).as("the writer, once the first reader left").isPresent();
        assertThat(laterReader.isDone()).as("the later reader still waits while the writer holds").isFalse();
        written.get().close();
        Optional<Lease> read = laterReader.get(SOON.toSeconds() + 10, TimeUnit.SECONDS);
        assertThat(read).isPresent();
        assertThat(read.get().fencingToken()).isGreaterThan(written.get().fencingToken());
        read.get().close();
    }

    /**
     * Issue 28 (claims without a test): readers and writers are served in arrival order across clients. Six waiters
     * queue behind a writer, each known queued at the server before the next arrives: read 0, read 1, write 2, read 3,
     * write 4, read 5. Each release then lets in exactly the next ones in that order: the two readers at the head
     * together, then the writer, then reader 3 (it arrived after writer 2, so it did not join readers 0 and 1), then
     * writer 4, then reader 5. A waiter granted out of turn would hold and keep the one whose turn it was out, so the
     * step that expects that one fails.
     */
    @Test
    void readersAndWritersAreServedInArrivalOrder() throws Exception {
        String name = uniqueName();
        Lease writer = readWrite(newClient(), name).writeLock().acquire(SOON);
        boolean[] writes = {false, false, true, false, true, false};
        List<Future<Optional<Lease>>> waiters = new ArrayList<>();
        for (boolean write : writes) {
            DistributedReadWriteLock lock = readWrite(newClientWithoutPolling(), name);
            waiters.add(queuedWaiter(write ? lock.writeLock() : lock.readLock(), SOON));
        }
        writer.close();
        List<Lease> holding = awaitGranted(waiters, List.of(0, 1));
        holding.forEach(Lease::close);
        holding = awaitGranted(waiters, List.of(0, 1, 2));
        holding.forEach(Lease::close);
        holding = awaitGranted(waiters, List.of(0, 1, 2, 3));
        holding.forEach(Lease::close);
        holding = awaitGranted(waiters, List.of(0, 1, 2, 3, 4));
        holding.forEach(Lease::close);
        holding = awaitGranted(waiters, List.of(0, 1, 2, 3, 4, 5));
        holding.forEach(Lease::close);
        assertThat(readWrite(newClient(), name).writeLock().tryAcquire(SOON)).as("everything was released").isPresent().get().satisfies(Lease::close);
    }

    /**
     * Waits until every waiter of {@code granted} is done and asserts that no other one is; returns the leases of those
     * granted by this step (those not already closed by an earlier step).
     */
    private static List<Lease> awaitGranted(List<Future<Optional<Lease>>> waiters, List<Integer> granted) throws Exception {
        List<Lease> fresh = new ArrayList<>();
        for (int i : granted) {
            Future<Optional<Lease>> waiter = waiters.get(i);
            Optional<Lease> lease = waiter.get(SOON.toSeconds(), TimeUnit.SECONDS);
            assertThat(lease).as("waiter %d, granted in its turn", i).isPresent();
            if (lease.get().isValid()) {
                fresh.add(lease.get());
            }
        }
        for (int i = 0; i < waiters.size(); i++) {
            if (!granted.contains(i)) {
                assertThat(waiters.get(i).isDone()).as("waiter %d, granted before its turn (granted so far: %s)", i, granted).isFalse();
            }
        }
        return fresh;
    }

    /**
     * Issue 28 (claims without a test): a read-write lock's force-unlock answers whether anyone held it: false on a
     * name never used and after every holder left, true while readers hold, and then false again.
     */
    @Test
    void forceUnlockOfAFreeReadWriteLockAnswersFalse() throws Exception {
        String name = uniqueName();
        DistributedReadWriteLock admin = readWrite(newClient(), name);
        assertThat(admin.forceUnlock()).as("force-unlock of a name never used").isFalse();
        assertThat(admin.readLock().forceUnlock()).as("force-unlock of the read side of a name never used").isFalse();
        assertThat(admin.writeLock().forceUnlock()).as("force-unlock of the write side of a name never used").isFalse();
        readWrite(newClient(), name).readLock().acquire(SOON).close();
        readWrite(newClient(), name).writeLock().acquire(SOON).close();
        assertThat(admin.forceUnlock()).as("force-unlock after every holder left").isFalse();
        Lease reader = readWrite(newClient(), name).readLock().acquire(SOON);
        Lease another = readWrite(newClient(), name).readLock().acquire(SOON);
        assertThat(admin.forceUnlock()).as("force-unlock while two readers hold").isTrue();
        assertUnlocked(name);
        assertThat(admin.forceUnlock()).as("a second force-unlock").isFalse();
        reader.close(); // quiet
        another.close();
        assertThat(readWrite(newClient(), name).writeLock().tryAcquire(SOON)).isPresent().get().satisfies(Lease::close);
    }

    /**
     * Issue 28 (claims without a test): read tokens, like the plain lock's, keep increasing across a server restart (on
     * Redis without persistence: the TIME term), and a write after the restart exceeds every read before it.
     */
    @Test
    @Tag(BackendContract.RESTART)
    void readAndWriteTokensKeepIncreasingAcrossAServerRestart() throws Exception {
        String name = uniqueName();
        LockClient client = newClient();
        long before;
        try (Lease read = readWrite(client, name).readLock().acquire(SOON); Lease other = readWrite(newClient(), name).readLock().acquire(SOON)) {
            before = Math.max(read.fencingToken(), other.fencingToken());
        }
        backend().restart();
        long readAfter = Await.succeeds(SOON, "a new client reads after the restart", () -> {
            try (Lease lease = readWrite(newClient(), name).readLock().acquire(Duration.ofSeconds(5))) {
                return lease.fencingToken();
            }
        });
        assertThat(readAfter).as("a read token after the restart").isGreaterThan(before);
        long readOnOldClient = Await.succeeds(SOON, "the old client reads again after the restart", () -> {
            try (Lease lease = readWrite(client, name).readLock().acquire(Duration.ofSeconds(5))) {
                return lease.fencingToken();
            }
        });
        assertThat(readOnOldClient).isGreaterThan(readAfter);
        try (Lease write = readWrite(client, name).writeLock().acquire(SOON)) {
            assertThat(write.fencingToken()).isGreaterThan(readOnOldClient);
        }
    }

    @Test
    void aWriteTokenExceedsEveryTokenGrantedBeforeIt() throws Exception {
        String name = uniqueName();
        Lease r1 = readWrite(newClient(), name).readLock().acquire(SOON);
        Lease r2 = readWrite(newClient(), name).readLock().acquire(SOON);
        assertThat(r2.fencingToken()).isGreaterThan(r1.fencingToken());
        r1.close();
        r2.close();
        Lease w = readWrite(newClient(), name).writeLock().acquire(SOON);
        assertThat(w.fencingToken()).isGreaterThan(r2.fencingToken());
        w.close();
        Lease r3 = readWrite(newClient(), name).readLock().acquire(SOON);
        assertThat(r3.fencingToken()).isGreaterThan(w.fencingToken());
        r3.close();
    }

    @Test
    void aWriterDowngradesAtomicallyToAReader() throws Exception {
        String name = uniqueName();
        DistributedReadWriteLock lock = readWrite(newClient(), name);
        lock.writeLock().lock();
        long writeToken = lock.writeLock().heldLease().fencingToken();
        Future<Optional<Lease>> otherWriter = queuedWaiter(readWrite(newClientWithoutPolling(), name).writeLock(), SOON);
        assertThat(lock.readLock().tryLock()).as("a read by the writing thread is granted at once, though a writer waits").isTrue();
        assertThat(lock.readLock().heldLease().fencingToken()).isGreaterThan(writeToken);
        lock.writeLock().unlock();
        assertThat(lock.readLock().isHeldByCurrentThread()).isTrue();
        assertThat(lock.readLock().heldLease().isValid()).isTrue();
        assertThat(otherWriter.isDone()).as("the waiting writer stays out while the downgraded reader reads").isFalse();
        lock.readLock().unlock();
        Optional<Lease> written = otherWriter.get(SOON.toSeconds() + 10, TimeUnit.SECONDS);
        assertThat(written).as("the other writer, once the downgraded reader left").isPresent();
        written.get().close();
    }

    @Test
    void anUpgradeFromReadToWriteIsRefusedAndChangesNothing() throws Exception {
        String name = uniqueName();
        DistributedReadWriteLock lock = readWrite(newClient(), name);
        lock.readLock().lock();
        assertThatThrownBy(() -> lock.writeLock().tryLock(1, TimeUnit.SECONDS))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("upgrad").hasMessageContaining(name);
        assertThat(lock.readLock().getHoldCount()).isEqualTo(1);
        assertThat(lock.writeLock().isHeldByCurrentThread()).isFalse();
        Optional<Lease> another = readWrite(newClient(), name).readLock().tryAcquire(Duration.ZERO);
        assertThat(another).as("still shared with readers").isPresent();
        another.get().close();
        lock.readLock().unlock();
        assertThat(readWrite(newClient(), name).writeLock().tryAcquire(SOON)).isPresent();
    }

    @Test
    void readHoldsAreReentrantPerThread() throws Exception {
        String name = uniqueName();
        DistributedLock read = readWrite(newClient(), name).readLock();
        read.lock();
        Lease second = read.acquire();
        assertThat(read.getHoldCount()).isEqualTo(2);
        assertThat(second.fencingToken()).isEqualTo(read.heldLease().fencingToken());
        second.close();
        assertThat(read.getHoldCount()).isEqualTo(1);
        read.unlock();
        assertThat(read.isHeldByCurrentThread()).isFalse();
        assertThatThrownBy(read::unlock).isInstanceOf(IllegalMonitorStateException.class);
        assertThat(readWrite(newClient(), name).writeLock().tryAcquire(SOON)).as("no read hold left behind").isPresent();
    }

    @Test
    void oneReadersLostLeaseTouchesNoOtherReader() throws Exception {
        String name = uniqueName();
        Lease short1 = newClient().getReadWriteLock(name, lease(shortLease(), false)).readLock().acquire(SOON);
        Lease renewed = newClient().getReadWriteLock(name, lease(shortLease().multipliedBy(2), true)).readLock().acquire(SOON);
        AtomicReference<LeaseLostException> lost = new AtomicReference<>();
        short1.onLost(lost::set);
        Await.until(SOON, "the reader without renewals loses its lease", () -> lost.get() != null);
        assertThat(renewed.isValid()).as("the renewed reader keeps its lease").isTrue();
        assertThat(readWrite(newClient(), name).writeLock().tryAcquire(Duration.ZERO)).as("the renewed reader still holds").isEmpty();
        renewed.close();
        assertThat(readWrite(newClient(), name).writeLock().tryAcquire(SOON)).isPresent();
    }

    @Test
    void readersAndWritersExcludeEachOtherUnderLoad() throws Exception {
        String name = uniqueName();
        AtomicInteger writers = new AtomicInteger();
        AtomicInteger readers = new AtomicInteger();
        AtomicInteger violations = new AtomicInteger();
        List<Future<?>> workers = new ArrayList<>();
        for (int c = 0; c < 3; c++) {
            DistributedReadWriteLock lock = readWrite(newClient(), name);
            for (int t = 0; t < 3; t++) {
                boolean writer = t == 0;
                workers.add(inBackground(() -> {
                    for (int i = 0; i < 10; i++) {
                        DistributedLock side = writer ? lock.writeLock() : lock.readLock();
                        side.lock();
                        try {
                            int w = writer ? writers.incrementAndGet() : writers.get();
                            int r = writer ? readers.get() : readers.incrementAndGet();
                            if (w > 1 || (w == 1 && r > 0)) {
                                violations.incrementAndGet();
                            }
                            Thread.yield();
                        } finally {
                            if (writer) {
                                writers.decrementAndGet();
                            } else {
                                readers.decrementAndGet();
                            }
                            side.unlock();
                        }
                    }
                    return null;
                }));
            }
        }
        for (Future<?> worker : workers) {
            worker.get(2, TimeUnit.MINUTES);
        }
        assertThat(violations.get()).as("a writer overlapping a reader or another writer").isZero();
    }

    @Test
    void closingTheClientReleasesItsReadAndWriteHolds() throws Exception {
        String name = uniqueName();
        LockClient client = newClient();
        Lease read = readWrite(client, name).readLock().acquire(SOON);
        Lease otherName = readWrite(client, name + "-w").writeLock().acquire(SOON);
        client.close();
        assertThat(read.isValid()).isFalse();
        assertThat(otherName.isValid()).isFalse();
        assertThat(readWrite(newClient(), name).writeLock().tryAcquire(SOON)).isPresent();
        assertThat(readWrite(newClient(), name + "-w").writeLock().tryAcquire(SOON)).isPresent();
    }

    /**
     * Readers and writers on virtual threads (JDK 21+; `.ci/run` runs this again on a newer JDK): each lease is closed on
     * another virtual thread than the one that took it, and no writer ever holds together with anyone.
     */
    @Test
    @EnabledForJreRange(min = JRE.JAVA_21)
    void virtualThreadsReadAndWriteAndReleaseOnOtherThreads() throws Exception {
        String name = uniqueName();
        DistributedReadWriteLock rw = newClient().getReadWriteLock(name);
        java.util.concurrent.ExecutorService virtual =
                (java.util.concurrent.ExecutorService) java.util.concurrent.Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
        AtomicInteger readers = new AtomicInteger();
        AtomicInteger writers = new AtomicInteger();
        AtomicInteger broken = new AtomicInteger();
        try {
            List<Future<?>> tasks = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                boolean write = i % 4 == 0;
                tasks.add(virtual.submit(() -> {
                    Lease lease = (write ? rw.writeLock() : rw.readLock()).tryAcquireDetached(Duration.ofMinutes(2)).orElseThrow();
                    // each side counts itself in, then looks at the other: of two that overlap, at least one sees it
                    boolean alone = write ? writers.incrementAndGet() == 1 && readers.get() == 0 : readers.incrementAndGet() > 0 && writers.get() == 0;
                    if (!alone) {
                        broken.incrementAndGet();
                    }
                    TimeUnit.MILLISECONDS.sleep(1);
                    (write ? writers : readers).decrementAndGet();
                    virtual.submit(lease::close).get(); // closed on another virtual thread
                    return null;
                }));
            }
            for (Future<?> task : tasks) {
                task.get(3, TimeUnit.MINUTES);
            }
        } finally {
            virtual.shutdownNow();
        }
        assertThat(broken.get()).as("times a writer held with anyone else").isZero();
        assertThat(rw.writeLock().tryAcquire(Duration.ofSeconds(5))).as("everything was released").isPresent().get().satisfies(Lease::close);
    }
}
