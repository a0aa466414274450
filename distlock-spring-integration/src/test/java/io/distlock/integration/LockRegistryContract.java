package io.distlock.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.distlock.LockClient;
import io.distlock.LockOptions;
import io.distlock.servers.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.ConcurrentModificationException;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;
import org.springframework.integration.support.locks.LockRegistry;

/**
 * What code written against Spring Integration's {@code LockRegistry} expects of it (RedisLockRegistry's and
 * JdbcLockRegistry's behaviour), against a real server: two registries on two clients stand for two instances of an
 * application. Runs on Spring Integration 7.0 here and on 6.5 and 7.1 in the compat modules.
 */
abstract class LockRegistryContract {
    private static final Duration SOON = Duration.ofSeconds(20);
    private final List<LockClient> clients = new ArrayList<>();
    private final List<Runnable> cleanups = new ArrayList<>();

    /** Returns a new client on the test's server. */
    protected abstract LockClient newClient();

    /** Returns the test's server, to freeze it. */
    protected abstract io.distlock.servers.BackendControl server();

    private LockClient client() {
        LockClient client = newClient();
        clients.add(client);
        return client;
    }

    private DistlockLockRegistry registry() {
        return new DistlockLockRegistry(client());
    }

    @AfterEach
    void closeClients() {
        cleanups.forEach(Runnable::run);
        clients.forEach(LockClient::close);
    }

    private static String key() {
        return "si-" + UUID.randomUUID();
    }

    /** Runs {@code action} on another thread and returns its result. */
    private static <T> T elsewhere(java.util.concurrent.Callable<T> action) throws Exception {
        CompletableFuture<T> result = new CompletableFuture<>();
        Thread thread = new Thread(() -> {
            try {
                result.complete(action.call());
            } catch (Throwable e) {
                result.completeExceptionally(e);
            }
        });
        thread.start();
        return result.get(SOON.toSeconds(), TimeUnit.SECONDS);
    }

    @Test
    void oneInstanceHoldsAKeyUntilItUnlocksItsLastHold() throws Exception {
        String key = key();
        DistlockLockRegistry first = registry();
        DistlockLockRegistry second = registry();
        Lock lock = first.obtain(key);
        assertThat(first.obtain(key)).as("one lock object per key").isSameAs(lock);
        lock.lock();
        assertThat(lock.tryLock()).as("reentrant").isTrue();
        assertThat(second.obtain(key).tryLock()).isFalse();
        lock.unlock();
        assertThat(second.obtain(key).tryLock()).as("one hold is left").isFalse();
        lock.unlock();
        Lock next = second.obtain(key);
        assertThat(next.tryLock(SOON.toSeconds(), TimeUnit.SECONDS)).isTrue();
        next.unlock();
    }

    @Test
    void keysAreStringsAndValidNames() {
        DistlockLockRegistry registry = registry();
        assertThatThrownBy(() -> registry.obtain(42)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("Strings");
        assertThatThrownBy(() -> registry.obtain(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> registry.obtain(" ")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void anotherThreadCannotUnlockItAndTheLockStaysHeld() throws Exception {
        String key = key();
        DistlockLockRegistry registry = registry();
        Lock lock = registry.obtain(key);
        lock.lock();
        Throwable thrown = elsewhere(() -> {
            try {
                lock.unlock();
                return null;
            } catch (RuntimeException e) {
                return e;
            }
        });
        assertThat(thrown).isInstanceOf(IllegalStateException.class).hasMessageContaining("not held by this thread");
        assertThat(registry().obtain(key).tryLock()).as("still held").isFalse();
        assertThat(elsewhere(() -> registry.obtain(key).tryLock())).as("not even by this registry's other threads").isFalse();
        lock.unlock();
    }

    @Test
    void aLostLockMakesUnlockThrowConcurrentModificationAndTheNewHolderKeepsItsLock() throws Exception {
        String key = key();
        DistlockRegistryLock lock = registry().obtain(key);
        lock.lock();
        long firstToken = lock.fencingToken();
        client().getLock(key).forceUnlock(); // an operator, or a lease that ran out
        DistlockRegistryLock next = registry().obtain(key);
        assertThat(elsewhere(() -> next.tryLock(SOON.toSeconds(), TimeUnit.SECONDS))).isTrue();
        assertThatThrownBy(lock::unlock).isInstanceOf(ConcurrentModificationException.class).hasMessageContaining(key);
        assertThat(lock.isHeldByCurrentThread()).as("the hold is gone all the same").isFalse();
        assertThat(lock.unusedSince(Long.MAX_VALUE)).as("and no longer counted as held").isTrue();
        assertThat(registry().obtain(key).tryLock()).as("the new holder's lock is untouched").isFalse();
        assertThat(client().getLock(key).isLocked()).isTrue();
        assertThat(firstToken).isPositive();
    }

    @Test
    void aServerThatDoesNotAnswerMakesLockThrowSpringsCannotAcquireLockException() throws Exception {
        String key = key();
        LockClient client = client(); // connected before the server freezes
        Lock lock = new DistlockLockRegistry(client).obtain(key);
        server().pause();
        try {
            assertThatThrownBy(lock::lock).isInstanceOf(org.springframework.dao.CannotAcquireLockException.class).hasMessageContaining(key);
        } finally {
            server().resume();
        }
        Lock after = registry().obtain(key);
        // the frozen server runs the abandoned request when it wakes; the client releases what that granted
        assertThat(after.tryLock(SOON.toSeconds(), TimeUnit.SECONDS)).as("nothing left held by the attempt").isTrue();
        after.unlock();
    }

    @Test
    void everyHoldHasALargerFencingTokenThanTheOneBefore() {
        String key = key();
        DistlockRegistryLock first = registry().obtain(key);
        first.lock();
        long token = first.fencingToken();
        first.unlock();
        DistlockRegistryLock second = registry().obtain(key);
        second.lock();
        assertThat(second.fencingToken()).isGreaterThan(token);
        second.unlock();
        assertThatThrownBy(second::fencingToken).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void executeLockedRunsTheTaskUnderTheLock() throws Exception {
        String key = key();
        LockRegistry<?> registry = registry(); // as applications declare it
        DistlockLockRegistry other = registry();
        String result = registry.executeLocked(key, () -> {
            assertThat(other.obtain(key).tryLock()).as("held while the task runs").isFalse();
            return "done";
        });
        assertThat(result).isEqualTo("done");
        Lock after = other.obtain(key);
        assertThat(after.tryLock()).isTrue();
        after.unlock();
    }

    @Test
    void expireUnusedDropsOnlyLocksNobodyHolds() throws Exception {
        String heldKey = key();
        String freeKey = key();
        DistlockLockRegistry registry = registry();
        Lock held = registry.obtain(heldKey);
        Lock free = registry.obtain(freeKey);
        held.lock();
        long before = System.currentTimeMillis();
        Await.until(SOON, "the clock moves on", () -> System.currentTimeMillis() > before);
        registry.expireUnusedOlderThan(0);
        assertThat(registry.obtain(heldKey)).as("held: kept").isSameAs(held);
        assertThat(registry.obtain(freeKey)).as("unused: dropped").isNotSameAs(free);
        held.unlock();
    }

    @Test
    void renewLockNeedsTheCallingThreadsHoldAndSaysWhenItWasLost() throws Exception {
        String key = key();
        DistlockLockRegistry registry = registry();
        assertThatThrownBy(() -> registry.renewLock(key)).isInstanceOf(IllegalStateException.class);
        Lock lock = registry.obtain(key);
        lock.lock();
        registry.renewLock(key);
        registry.renewLock(key, Duration.ofSeconds(5)); // a watchdog lease: checked, and renewed on as before
        assertThat(elsewhere(() -> {
            try {
                registry.renewLock(key);
                return false;
            } catch (IllegalStateException e) {
                return true;
            }
        })).as("another thread").isTrue();
        client().getLock(key).forceUnlock();
        Await.until(SOON, "the holder learns of the loss", () -> !((DistlockRegistryLock) lock).heldLease().isValid());
        assertThatThrownBy(() -> registry.renewLock(key)).isInstanceOf(IllegalStateException.class).hasMessageContaining("lost");
        assertThatThrownBy(lock::unlock).isInstanceOf(ConcurrentModificationException.class);
    }

    @Test
    void theLeaderInitiatorHandsLeadershipOnWhenTheLeadersLockIsLost() throws Exception {
        String role = key();
        LockOptions shortLease = LockOptions.builder().leaseTime(Duration.ofSeconds(1)).build();
        Leader a = new Leader("a", role);
        Leader b = new Leader("b", role);
        LockRegistryLeaderInitiator first = initiator(new DistlockLockRegistry(client(), shortLease), a);
        first.start();
        Await.until(SOON, "a leads", a.leading::get);
        LockRegistryLeaderInitiator second = initiator(new DistlockLockRegistry(client(), shortLease), b);
        second.start();
        assertThat(b.leading.get()).as("one leader").isFalse();

        client().getLock(role).forceUnlock(); // a's lock is lost: a stops leading, b takes over
        Await.until(SOON, "b leads and a does not", () -> b.leading.get() && !a.leading.get());
        first.stop();
        second.stop();
        Await.until(SOON, "b's leadership ends with its initiator", () -> !b.leading.get());
        assertThat(client().getLock(role).isLocked()).as("released").isFalse();
    }

    private LockRegistryLeaderInitiator initiator(DistlockLockRegistry registry, Leader candidate) {
        LockRegistryLeaderInitiator initiator = new LockRegistryLeaderInitiator(registry, candidate);
        initiator.setHeartBeatMillis(100);
        initiator.setBusyWaitMillis(50);
        cleanups.add(initiator::stop);
        return initiator;
    }

    /** A candidate that records whether it leads. */
    private static final class Leader extends DefaultCandidate {
        final AtomicBoolean leading = new AtomicBoolean();

        Leader(String id, String role) {
            super(id, role);
        }

        @Override
        public void onGranted(Context ctx) {
            leading.set(true);
        }

        @Override
        public void onRevoked(Context ctx) {
            leading.set(false);
        }
    }

    // ---- Spring Integration 7's DistributedLock: lock(ttl)

    @Test
    void onSpringIntegration7ALockTakenWithATimeToLiveEndsWhenItRunsOutUnlessRenewed() throws Exception {
        assumeTrue(Si7.present(), "Spring Integration 6.5 has no time-to-live locking");
        String key = key();
        DistlockLockRegistry registry = registry();
        DistlockRegistryLock lock = registry.obtain(key);
        Si7.lock(lock, Duration.ofSeconds(1));
        registry.renewLock(key, Duration.ofSeconds(60));
        Lock other = registry().obtain(key);
        assertThat(elsewhere(() -> other.tryLock(3, TimeUnit.SECONDS))).as("renewed past its first second").isFalse();
        registry.renewLock(key, Duration.ofMillis(200));
        assertThat(elsewhere(() -> {
            boolean locked = other.tryLock(SOON.toSeconds(), TimeUnit.SECONDS);
            if (locked) {
                other.unlock();
            }
            return locked;
        })).as("free once the time to live ran out").isTrue();
        assertThatThrownBy(lock::unlock).isInstanceOf(ConcurrentModificationException.class);

        assertThat(Si7.tryLock(lock, Duration.ZERO, Duration.ofSeconds(30))).isTrue();
        lock.lock(); // re-entry keeps the time-to-live hold
        lock.unlock();
        registry.renewLock(key); // for its own time to live again
        lock.unlock();
        assertThat(client().getLock(key).isLocked()).isFalse();
    }
}
