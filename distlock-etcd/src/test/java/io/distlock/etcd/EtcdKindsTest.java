package io.distlock.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.DistributedReadWriteLock;
import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.etcd.testing.EtcdClusterExtension;
import io.distlock.servers.Await;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The interleavings of etcd's lock kinds that the shared contract cannot stage: an answer lost after the server applied
 * a force unlock, a downgrade by a writer whose key is already gone, a semaphore's number of permits judged by its
 * oldest key. Each test fails without the guard it names.
 */
class EtcdKindsTest {
    private static final Duration SOON = Duration.ofSeconds(30);
    @RegisterExtension
    static final EtcdClusterExtension etcd = new EtcdClusterExtension();
    @RegisterExtension
    static final EtcdTestbed testbed = new EtcdTestbed(etcd);
    private final RpcFaults faults = new RpcFaults();
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @AfterEach
    void stopThreads() {
        threads.shutdownNow();
    }

    /** A lock client on a jetcd client the test built, with {@link #faults} on its calls. */
    private EtcdLockClient faultyClient() {
        Client jetcd = Client.builder().endpoints(etcd.target().split(",")).interceptor(faults).build();
        testbed.closeAfterTest(jetcd);
        EtcdLockClient client = EtcdLockClient.builder().client(jetcd).sessionTtl(EtcdClientFactory.SESSION_TTL)
                .operationTimeout(Duration.ofSeconds(5)).fallbackPoll(Duration.ofMinutes(5)).build();
        testbed.closeAfterTest(client);
        return client;
    }

    private LockClient plainClient() {
        LockClient client = EtcdLockClient.builder().endpoints(etcd.target()).sessionTtl(EtcdClientFactory.SESSION_TTL)
                .operationTimeout(Duration.ofSeconds(5)).fallbackPoll(Duration.ofMinutes(5)).build();
        testbed.closeAfterTest(client);
        return client;
    }

    /**
     * Guard: a release that falls between a waiter's turn check and the creation of its watch is not missed. The watch
     * starts at etcd's current revision (a watch asked to start in the past is served by etcd's 100 ms sync loop, which
     * made busy waits slow), and etcd confirms its creation with that revision: when it is not the revision the check
     * read, the waiter reads again. Here the holder releases right before the waiter's watch is sent; without the second
     * read the waiter, whose own polls are 5 minutes apart, would sleep through the release to the end of its wait.
     */
    @Test
    void aReleaseBetweenAWaitersTurnCheckAndItsWatchIsNotMissed() throws Exception {
        for (String kind : List.of("lock", "fair lock")) {
            String name = "between-check-and-watch-" + kind.replace(' ', '-');
            LockClient holders = plainClient();
            EtcdLockClient waiters = faultyClient();
            Lease held = kind.equals("lock") ? holders.getLock(name).acquire(SOON) : holders.getFairLock(name).acquire(SOON);
            faults.beforeNextCall(RpcFaults.WATCH, held::close);
            Future<Optional<Lease>> waiter = threads.submit(() -> kind.equals("lock")
                    ? waiters.getLock(name).tryAcquire(SOON) : waiters.getFairLock(name).tryAcquire(SOON));
            Optional<Lease> granted;
            try {
                granted = waiter.get(SOON.toSeconds() - 5, TimeUnit.SECONDS);
            } catch (java.util.concurrent.TimeoutException e) {
                throw new AssertionError(kind + ": the waiter missed the release that fell before its watch; still waiting 25 s later", e);
            }
            assertThat(faults.started(RpcFaults.WATCH)).as("%s: the waiter watched", kind).isPositive();
            assertThat(granted).as("%s: granted after the holder's release", kind).isPresent();
            assertThat(granted.get().fencingToken()).isGreaterThan(held.fencingToken());
            granted.get().close();
        }
    }

    /**
     * Guard: a force unlock is not sent blind again after an answer lost in transit. The first transaction deleted the
     * holder's key; the waiter behind it is granted; a replay that read the queue again would end the waiter's hold.
     */
    @Test
    void aForceUnlockWhoseAnswerWasLostEndsNobodyGrantedAfterIt() throws Exception {
        String name = "replayed-force-unlock-" + System.nanoTime();
        Lease holder = plainClient().getLock(name).acquire();
        Future<Optional<Lease>> waiter = threads.submit(() -> plainClient().getLock(name).tryAcquire(SOON));
        Await.until(SOON, "the waiter is queued", () -> testbed.raw().queue(name).size() == 2);
        long waiterKey = testbed.raw().queue(name).get(1).getCreateRevision();

        faults.loseNextAnswer(RpcFaults.TXN);
        assertThat(faultyClient().getLock(name).forceUnlock()).as("the force unlock, whose first answer was lost").isTrue();

        Lease granted = waiter.get(SOON.toSeconds(), TimeUnit.SECONDS).orElseThrow();
        assertThat(testbed.raw().queue(name)).as("the waiter's key, granted after the force unlock ran").singleElement()
                .satisfies(key -> assertThat(key.getCreateRevision()).isEqualTo(waiterKey));
        assertThat(granted.isValid()).isTrue();
        assertThat(holder.isValid()).as("the holder that was ended does not know yet (etcd cannot tell it)").isTrue();
        granted.close();
    }

    /** The same guard on a read-write lock: every holder ended at once, and the writer granted after it is left alone. */
    @Test
    void aReadWriteForceUnlockWhoseAnswerWasLostEndsNoWriterGrantedAfterIt() throws Exception {
        String name = "replayed-rw-force-unlock-" + System.nanoTime();
        Lease reader = plainClient().getReadWriteLock(name).readLock().acquire();
        Lease another = plainClient().getReadWriteLock(name).readLock().acquire();
        Future<Optional<Lease>> writer = threads.submit(() -> plainClient().getReadWriteLock(name).writeLock().tryAcquire(SOON));
        Await.until(SOON, "the writer is queued behind both readers", () -> testbed.raw().readWriteQueue(name).size() == 3);

        faults.loseNextAnswer(RpcFaults.TXN);
        assertThat(faultyClient().getReadWriteLock(name).forceUnlock()).isTrue();

        Lease written = writer.get(SOON.toSeconds(), TimeUnit.SECONDS).orElseThrow();
        assertThat(testbed.raw().readWriteQueue(name)).as("only the writer's key is left").singleElement()
                .satisfies(key -> assertThat(QueueRule.role(key)).startsWith("w-"));
        assertThat(testbed.raw().readWriteHeld(name)).isTrue();
        written.close();
        reader.close(); // each learns its loss at its release
        another.close();
    }

    /**
     * Guard: the downgraded reader is created only if the writer's key still exists, in the same transaction. Here an
     * operator deleted the writer's key (its holder has not noticed: etcd cannot tell it) and another writer was
     * granted; a downgrade made without the compare would grant a reader beside that writer.
     */
    @Test
    void aDowngradeByAWriterWhoseKeyIsGoneIsRefusedWhileAnotherWriterHolds() throws Exception {
        String name = "stale-downgrade-" + System.nanoTime();
        DistributedReadWriteLock stale = plainClient().getReadWriteLock(name);
        Future<Boolean> downgraded = threads.submit(() -> {
            stale.writeLock().lock();
            KeyValue writerKey = testbed.raw().readWriteQueue(name).get(0);
            testbed.raw().delete(writerKey);
            try (Lease other = plainClient().getReadWriteLock(name).writeLock().acquire(SOON)) {
                boolean read = stale.readLock().tryLock();
                assertThat(testbed.raw().readWriteQueue(name)).as("no reader key was made beside the other writer").noneMatch(
                        key -> QueueRule.role(key).startsWith(QueueRule.DOWNGRADED) || QueueRule.role(key).startsWith("r-"));
                assertThat(other.isValid()).isTrue();
                return read;
            }
        });
        assertThat(downgraded.get(SOON.toSeconds() * 2, TimeUnit.SECONDS)).as("a read while another writer holds").isFalse();
    }

    /**
     * The downgraded reader is made after the writers that wait behind its writer; tokens must follow the grants, so a
     * waiting writer takes its token when it is granted (a write of its key), not at its key's creation.
     */
    @Test
    void aWriterGrantedAfterADowngradedReaderHasTheHigherToken() throws Exception {
        String name = "token-after-downgrade-" + System.nanoTime();
        DistributedReadWriteLock lock = plainClient().getReadWriteLock(name);
        Future<Long> downgradedToken = threads.submit(() -> {
            lock.writeLock().lock();
            Await.until(SOON, "the other writer is queued", () -> testbed.raw().readWriteQueue(name).size() == 2);
            lock.readLock().lock();
            long token = lock.readLock().heldLease().fencingToken();
            lock.writeLock().unlock();
            lock.readLock().unlock();
            return token;
        });
        Lease written = plainClient().getReadWriteLock(name).writeLock().acquire(SOON);
        long readToken = downgradedToken.get(SOON.toSeconds(), TimeUnit.SECONDS);
        assertThat(written.fencingToken()).as("the waiting writer's token, granted after the downgraded reader")
                .isGreaterThan(readToken);
        written.close();
    }

    /**
     * A semaphore's number of permits is its oldest key's: a client with another number is refused while any key of
     * the first number is left, and nothing of its try stays behind; once the semaphore is free, the new number holds.
     */
    @Test
    void aSemaphoresNumberOfPermitsIsItsOldestKeys() throws Exception {
        String name = "permits-" + System.nanoTime();
        Lease first = plainClient().getSemaphore(name, 2).acquire();
        Lease second = plainClient().getSemaphore(name, 2).acquire();
        LockClient other = plainClient();
        assertThatThrownBy(() -> other.getSemaphore(name, 3).tryAcquire(Duration.ZERO)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("in use with 2 permits, asked with 3");
        first.close();
        assertThatThrownBy(() -> other.getSemaphore(name, 3).tryAcquire(Duration.ZERO)).as("while the younger key of 2 is left")
                .isInstanceOf(IllegalStateException.class);
        Await.until(SOON, "the refused keys are deleted", () -> testbed.raw().semaphoreQueue(name).size() == 1);
        second.close();
        try (Lease a = other.getSemaphore(name, 3).acquire(); Lease b = plainClient().getSemaphore(name, 3).acquire();
                Lease c = plainClient().getSemaphore(name, 3).acquire()) {
            assertThat(List.of(a, b, c)).allSatisfy(lease -> assertThat(lease.isValid()).isTrue());
            assertThat(testbed.raw().semaphoreQueue(name)).hasSize(3).allSatisfy(key -> assertThat(EtcdLockBackend.storedPermits(key, 0)).isEqualTo(3));
            assertThat(plainClient().getSemaphore(name, 3).tryAcquire(Duration.ZERO)).as("a fourth of three").isEmpty();
        }
    }
}
