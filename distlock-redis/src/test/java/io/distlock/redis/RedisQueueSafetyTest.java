package io.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.DistributedReadWriteLock;
import io.distlock.DistributedSemaphore;
import io.distlock.Lease;
import io.distlock.LeaseLostException;
import io.distlock.LockInspector.LockState;
import io.distlock.LockKind;
import io.distlock.redis.testing.RedisServerExtension;
import io.distlock.redis.testing.Resp;
import io.distlock.servers.Await;
import io.distlock.servers.TcpProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Interleavings of the queued kinds (queue.lua) that once broke them (issue 28): a client with another permit
 * count, a read-write force-unlock, a replayed force-unlock and a replayed downgrade (the reply lost, the request
 * sent again by Lettuce after it reconnects), and force-unlock notices in a lock that never goes idle. Each checks
 * the server's own state.
 */
class RedisQueueSafetyTest {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();
    private static final Duration SOON = Duration.ofSeconds(20);

    private final ExecutorService threads = Executors.newCachedThreadPool();
    private final List<RedisLockClient> clients = new ArrayList<>();

    @AfterEach
    void stop() {
        threads.shutdownNow();
        clients.forEach(RedisLockClient::close);
    }

    private RedisLockClient client() {
        return track(RedisLockClient.builder().uri(redis.target()).fallbackPoll(Duration.ofMinutes(5)).build());
    }

    /** A client behind {@code proxy}, patient enough (10 s) to see its request replayed after a reconnect. */
    private RedisLockClient through(TcpProxy proxy) {
        return track(RedisLockClient.builder().uri("redis://127.0.0.1:" + proxy.port()).operationTimeout(Duration.ofSeconds(10)).build());
    }

    private RedisLockClient track(RedisLockClient client) {
        clients.add(client);
        return client;
    }

    private static String state(String name, String kind) {
        return RedisKeys.defaults().queueState(name, kind);
    }

    /** The holders of a queued lock as its state hash counts them (pending grants included). */
    private static long holdCount(String name, String kind) {
        Object held = Resp.call(redis.server().port(), "HGET", state(name, kind), "held");
        return held == null ? 0 : Long.parseLong((String) held);
    }

    private static Optional<LockState> shown(RedisLockClient client, String name, LockKind kind) {
        return client.inspector().orElseThrow().show(name, kind);
    }

    /** Drops the replies from now on; once {@code ran} holds, cuts the connections so that the client reconnects and replays. */
    private static CompletableFuture<Void> loseTheReplyAndReconnect(TcpProxy proxy, BooleanSupplier ran) {
        proxy.discardReplies(true);
        return CompletableFuture.runAsync(() -> {
            Await.until(Duration.ofSeconds(10), "the request ran on the server", ran);
            proxy.cut();
            proxy.discardReplies(false);
            proxy.heal();
        });
    }

    /**
     * Finding 1: the refused client's own calls (the leave that follows its refused join, its count of free permits)
     * granted against the number it asked with, so a third holder got a permit of a two-permit semaphore.
     */
    @Test
    void aClientAskingWithAnotherNumberOfPermitsIsRefusedAndGrantsNoPermitBeyondTheCount() throws Exception {
        String name = "sem-" + System.nanoTime();
        List<Lease> held = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            held.add(client().getSemaphore(name, 2).acquire(SOON));
        }
        RedisLockClient observer = client();
        Future<Optional<Lease>> waiter = threads.submit(() -> client().getSemaphore(name, 2).tryAcquire(SOON));
        Await.until(SOON, "a third client waits for a permit",
                () -> shown(observer, name, LockKind.SEMAPHORE).map(s -> s.waiters() == 1).orElse(false));

        DistributedSemaphore other = client().getSemaphore(name, 3);
        assertThatThrownBy(() -> other.tryAcquire(Duration.ofSeconds(1))).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("in use with 2 permits, asked with 3");
        assertThat(other.availablePermits()).as("free permits, counted against the semaphore's own number").isZero();
        assertThat(observer.getSemaphore(name, 2).availablePermits()).isZero();

        assertThat(holdCount(name, "sem")).as("holders of the two permits on the server").isEqualTo(2);
        assertThat(shown(observer, name, LockKind.SEMAPHORE)).get().satisfies(s -> {
            assertThat(s.holders()).hasSize(2);
            assertThat(s.waiters()).isEqualTo(1);
        });
        held.remove(0).close();
        assertThat(waiter.get(SOON.toSeconds(), TimeUnit.SECONDS)).as("the waiter gets the freed permit").isPresent();
        assertThat(holdCount(name, "sem")).isEqualTo(2);
    }

    /**
     * Finding 3: a read-write lock was force-unlocked with two calls (the writer, then the readers); a reader granted
     * between them was ended as well, and the writer queued behind it granted while the reader still believed it held.
     * One call ends the holders of one instant; those granted after it keep their holds.
     */
    @Test
    void aReadWriteForceUnlockEndsTheHoldersOfOneInstantAndNoneGrantedAfterIt() throws Exception {
        String name = "rw-" + System.nanoTime();
        RedisLockClient observer = client();
        Lease writer = client().getReadWriteLock(name).writeLock().acquire(SOON);
        CompletableFuture<LeaseLostException> writerLost = new CompletableFuture<>();
        writer.onLost(writerLost::complete);
        Future<Optional<Lease>> reader = threads.submit(() -> client().getReadWriteLock(name).readLock().tryAcquire(SOON));
        Await.until(SOON, "a reader queues", () -> shown(observer, name, LockKind.READ_WRITE_LOCK).map(s -> s.waiters() == 1).orElse(false));
        Future<Optional<Lease>> nextWriter = threads.submit(() -> client().getReadWriteLock(name).writeLock().tryAcquire(SOON));
        Await.until(SOON, "a writer queues behind it", () -> shown(observer, name, LockKind.READ_WRITE_LOCK).map(s -> s.waiters() == 2).orElse(false));

        DistributedReadWriteLock admin = client().getReadWriteLock(name);
        assertThat(admin.forceUnlock()).as("someone held it").isTrue();

        Lease read = reader.get(SOON.toSeconds(), TimeUnit.SECONDS).orElseThrow();
        assertThat(shown(observer, name, LockKind.READ_WRITE_LOCK)).get().satisfies(s -> {
            assertThat(s.holders()).as("the reader granted after the force-unlock").singleElement()
                    .satisfies(h -> assertThat(h.role()).isEqualTo("read"));
            assertThat(s.waiters()).as("the writer behind it").isEqualTo(1);
        });
        assertThat(nextWriter.isDone()).isFalse();
        assertThat(writerLost.get(SOON.toSeconds(), TimeUnit.SECONDS).reason()).isEqualTo(LeaseLostException.Reason.FORCE_UNLOCKED);
        assertThat(read.isValid()).isTrue();
        read.close();
        assertThat(nextWriter.get(SOON.toSeconds(), TimeUnit.SECONDS)).isPresent();
    }

    /**
     * Finding 4: a queued kind's force-unlock carried no request id, so its replay (the reply lost, the request sent
     * again after a reconnect) ended the waiter that the first run had granted the lock to.
     */
    @Test
    void aForceUnlockWhoseReplyWasLostAndThatIsReplayedEndsNoHolderGrantedAfterIt() throws Exception {
        String name = "fair-" + System.nanoTime();
        RedisLockClient observer = client();
        client().getFairLock(name).acquire(SOON);
        Future<Optional<Lease>> next = threads.submit(() -> client().getFairLock(name).tryAcquire(SOON));
        Await.until(SOON, "a waiter queues", () -> shown(observer, name, LockKind.FAIR_LOCK).map(s -> s.waiters() == 1).orElse(false));
        try (TcpProxy proxy = TcpProxy.to(redis.server().port())) {
            RedisLockClient admin = through(proxy);
            admin.getFairLock(name).isLocked(); // connected before the replies are dropped

            CompletableFuture<Void> reconnected = loseTheReplyAndReconnect(proxy, next::isDone);
            assertThat(admin.getFairLock(name).forceUnlock()).as("the answer of the first run, replayed").isTrue();
            reconnected.get(10, TimeUnit.SECONDS);
        }
        Lease granted = next.get().orElseThrow();
        assertThat(holdCount(name, "fair")).as("the waiter granted by the force-unlock still holds on the server").isEqualTo(1);
        assertThat(granted.isValid()).isTrue();
        granted.close();
        assertThat(holdCount(name, "fair")).isZero();
    }

    /**
     * Finding 5: a replayed downgrade made a second read hold under the same owner; it counted as a holder that nobody
     * could release, and no writer could ever get the lock again.
     */
    @Test
    void aDowngradeWhoseReplyWasLostAndThatIsReplayedMakesOneReadHold() throws Exception {
        String name = "downgrade-" + System.nanoTime();
        try (TcpProxy proxy = TcpProxy.to(redis.server().port())) {
            DistributedReadWriteLock rw = through(proxy).getReadWriteLock(name);
            rw.writeLock().lock();

            CompletableFuture<Void> reconnected = loseTheReplyAndReconnect(proxy, () -> holdCount(name, "rw") >= 2);
            rw.readLock().lock(); // the downgrade: its reply is lost, Lettuce sends it again after reconnecting
            reconnected.get(10, TimeUnit.SECONDS);

            assertThat(holdCount(name, "rw")).as("the writer and one reader").isEqualTo(2);
            rw.writeLock().unlock();
            rw.readLock().unlock();
        }
        assertThat(holdCount(name, "rw")).as("holds left after both were released").isZero();
        assertThat(client().getReadWriteLock(name).writeLock().tryAcquire(Duration.ofSeconds(5)))
                .as("another writer gets the lock").isPresent().get().satisfies(Lease::close);
    }

    /**
     * Finding 10 (server side): a force-unlocked holder that never came back (crashed) left its notice in the lock's
     * state hash for as long as the lock stayed busy. A notice now lasts until the holder's lease would have ended.
     */
    @Test
    void forceUnlockNoticesOfHoldersThatNeverComeBackDoNotPileUpInABusyLock() throws Exception {
        String name = "busy-" + System.nanoTime();
        String st = state(name, "fair");
        RedisLockClient admin = client();
        int port = redis.server().port();
        for (int i = 0; i < 20; i++) {
            // a holder that takes the lock for 1 s and is never heard of again (its process died)
            Object granted = Resp.call(port, "EVAL", RedisLockScripts.Script.QUEUE_MULTI.source, "3", st, st + ":queue", st + ":deadlines",
                    "acquire", st + ":granted", "", "60000", "0", "5000", "ghost-" + i, "w", "1000");
            assertThat(granted.toString()).startsWith("[1,");
            assertThat(admin.getFairLock(name).forceUnlock()).isTrue();
        }
        Await.until(Duration.ofSeconds(10), "the notices are gone once the dead holders' leases would have ended", () -> {
            admin.getFairLock(name).isLocked(); // any call drops what ran out
            return notices(port, st) == 0;
        });
        Lease lease = admin.getFairLock(name).acquire(SOON);
        lease.close();
    }

    /** Force-unlock notices in a queued lock's state: {@code f:} fields (before) or {@code f} deadlines (now). */
    private static long notices(int port, String st) {
        List<?> fields = (List<?>) Resp.call(port, "HKEYS", st);
        List<?> deadlines = (List<?>) Resp.call(port, "ZRANGE", st + ":deadlines", "0", "-1");
        return fields.stream().filter(f -> f.toString().startsWith("f:")).count()
                + deadlines.stream().filter(m -> m.toString().startsWith("f")).count();
    }
}
