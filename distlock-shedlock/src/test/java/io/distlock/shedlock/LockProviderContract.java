package io.distlock.shedlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.LockClient;
import io.distlock.servers.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockExtender;
import net.javacrumbs.shedlock.core.LockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * ShedLock's rules for a LockProvider, against a real server: one holder per name, lockAtMostFor ends a lock nobody
 * unlocks, lockAtLeastFor keeps one unlocked early (also after its client closes), and the job's fencing token. Two
 * providers on two clients stand for two instances of an application.
 */
abstract class LockProviderContract {
    private final List<LockClient> clients = new ArrayList<>();

    /** Returns a new client on the test's server. */
    protected abstract LockClient newClient();

    private DistlockLockProvider provider() {
        LockClient client = newClient();
        clients.add(client);
        return new DistlockLockProvider(client);
    }

    @AfterEach
    void closeClients() {
        clients.forEach(LockClient::close);
    }

    private static LockConfiguration config(String name, Duration atMostFor, Duration atLeastFor) {
        return new LockConfiguration(ClockProvider.now(), name, atMostFor, atLeastFor);
    }

    /** Returns whether {@code provider} could take lock {@code name} now; releases it if so. */
    private static boolean takesAndReleases(DistlockLockProvider provider, String name) {
        Optional<SimpleLock> lock = provider.lock(config(name, Duration.ofSeconds(30), Duration.ZERO));
        lock.ifPresent(SimpleLock::unlock);
        return lock.isPresent();
    }

    private static String name() {
        return "job-" + UUID.randomUUID();
    }

    @Test
    void oneInstanceHoldsANameUntilItUnlocks() {
        String name = name();
        DistlockLockProvider first = provider();
        DistlockLockProvider second = provider();
        Optional<SimpleLock> held = first.lock(config(name, Duration.ofSeconds(30), Duration.ZERO));
        assertThat(held).isPresent();
        assertThat(second.lock(config(name, Duration.ofSeconds(30), Duration.ZERO))).as("the other instance skips").isEmpty();
        assertThat(first.lock(config(name, Duration.ofSeconds(30), Duration.ZERO))).as("so does the same instance").isEmpty();
        held.get().unlock();
        Optional<SimpleLock> next = second.lock(config(name, Duration.ofSeconds(30), Duration.ZERO));
        assertThat(next).as("free once unlocked").isPresent();
        next.get().unlock();
    }

    @Test
    void lockAtMostForEndsALockNobodyUnlocks() {
        String name = name();
        DistlockLockProvider hung = provider();
        assertThat(hung.lock(config(name, Duration.ofSeconds(1), Duration.ZERO))).isPresent(); // its job never returns
        DistlockLockProvider other = provider();
        Await.until(Duration.ofSeconds(20), "the lock to end after lockAtMostFor, without renewals", () -> takesAndReleases(other, name));
    }

    @Test
    void lockAtLeastForKeepsALockUnlockedEarlyEvenAfterItsClientCloses() {
        String name = name();
        LockClient firstClient = newClient();
        DistlockLockProvider first = new DistlockLockProvider(firstClient);
        DistlockLockProvider other = provider();
        Optional<SimpleLock> held = first.lock(config(name, Duration.ofSeconds(30), Duration.ofSeconds(2)));
        assertThat(held).isPresent();
        long unlocked = System.nanoTime();
        held.get().unlock(); // a fast job
        firstClient.close(); // and its application stops
        Optional<SimpleLock> early = other.lock(config(name, Duration.ofSeconds(30), Duration.ZERO));
        if (System.nanoTime() - unlocked < Duration.ofMillis(1500).toNanos()) { // else a loaded machine took the 2 s
            assertThat(early).as("held until lockAtLeastFor").isEmpty();
        }
        early.ifPresent(SimpleLock::unlock);
        Await.until(Duration.ofSeconds(20), "free once lockAtLeastFor has passed", () -> takesAndReleases(other, name));
    }

    @Test
    void theJobSeesItsFencingTokenAndTheNextHolderALargerOne() {
        String name = name();
        DistlockLockProvider provider = provider();
        SimpleLock first = provider.lock(config(name, Duration.ofSeconds(30), Duration.ZERO)).orElseThrow();
        long token = DistlockLockProvider.currentFencingToken().orElseThrow();
        first.unlock();
        assertThat(DistlockLockProvider.currentFencingToken()).as("none after the unlock").isEmpty();
        SimpleLock second = provider().lock(config(name, Duration.ofSeconds(30), Duration.ZERO)).orElseThrow();
        assertThat(DistlockLockProvider.currentFencingToken().orElseThrow()).isGreaterThan(token);
        second.unlock();
    }

    @Test
    void extendKeepsTheLockForTheNewLockAtMostForAndSpendsTheOldLock() throws Exception {
        String name = name();
        LockClient watcher = newClient();
        clients.add(watcher);
        SimpleLock held = provider().lock(config(name, Duration.ofSeconds(1), Duration.ZERO)).orElseThrow();
        SimpleLock extended = held.extend(Duration.ofSeconds(60), Duration.ZERO).orElseThrow();
        assertThat(watcher.getLock(name).tryAcquire(Duration.ofSeconds(3))).as("held past the first lockAtMostFor").isEmpty();
        assertThatThrownBy(held::unlock).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> held.extend(Duration.ofSeconds(5), Duration.ZERO)).isInstanceOf(IllegalStateException.class);
        SimpleLock shorter = extended.extend(Duration.ofMillis(300), Duration.ZERO).orElseThrow();
        Await.until(Duration.ofSeconds(20), "free once the shorter lockAtMostFor ran out", () -> takesAndReleases(provider(), name));
        assertThat(shorter.extend(Duration.ofSeconds(60), Duration.ZERO)).as("lost: nothing to extend").isEmpty();
        assertThat(watcher.getLock(name).isLocked()).as("and the next holder's lock untouched").isFalse();
    }

    @Test
    void anExtendedLockUnlocksAfterItsNewLockAtLeastFor() {
        String name = name();
        SimpleLock held = provider().lock(config(name, Duration.ofSeconds(30), Duration.ZERO)).orElseThrow();
        SimpleLock extended = held.extend(Duration.ofSeconds(30), Duration.ofSeconds(2)).orElseThrow();
        long unlocked = System.nanoTime();
        extended.unlock();
        DistlockLockProvider other = provider();
        Optional<SimpleLock> early = other.lock(config(name, Duration.ofSeconds(30), Duration.ZERO));
        if (System.nanoTime() - unlocked < Duration.ofMillis(1500).toNanos()) {
            assertThat(early).as("held until the extended lockAtLeastFor").isEmpty();
        }
        early.ifPresent(SimpleLock::unlock);
        Await.until(Duration.ofSeconds(20), "free once it has passed", () -> takesAndReleases(other, name));
    }

    @Test
    void shedLocksOwnExecutorRunsAJobThatExtendsItsLockWithLockExtenderAndUnlocksTheExtendedLock() throws Throwable {
        String name = name();
        LockClient watcher = newClient();
        clients.add(watcher);
        DefaultLockingTaskExecutor executor = new DefaultLockingTaskExecutor(provider());
        LockingTaskExecutor.TaskResult<Boolean> result = executor.executeWithLock(() -> {
            LockExtender.extendActiveLock(Duration.ofSeconds(60), Duration.ZERO); // a long job asks for more time
            return watcher.getLock(name).tryAcquire(Duration.ofSeconds(2)).isEmpty(); // past the first lockAtMostFor
        }, config(name, Duration.ofSeconds(1), Duration.ZERO));
        assertThat(result.wasExecuted()).isTrue();
        assertThat(result.getResult()).as("held past its first lockAtMostFor").isTrue();
        assertThat(watcher.getLock(name).isLocked()).as("the executor unlocked the extended lock").isFalse();
    }
}
