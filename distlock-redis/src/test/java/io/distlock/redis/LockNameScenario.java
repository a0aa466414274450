package io.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockOptions;
import io.distlock.redis.testing.RedisClusterGroup;
import io.distlock.redis.testing.Resp;
import io.distlock.servers.Await;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.function.ToIntFunction;
import org.jspecify.annotations.Nullable;

/**
 * Every operation on lock names that stress the key layout (braces, unicode, the longest name), run by
 * the standalone and the Cluster test classes. Waiters must have a fallback poll of minutes (and the
 * holder's leases are long), so a waiter that is woken in time was woken by the release notification.
 */
final class LockNameScenario {
    /** Names whose braces, characters or length could break the hash tag or the key. */
    static final List<String> NAMES = List.of("{", "}", "{}", "}x", "}{", "a}b{c}", "\u65e5\u672c-\uD83D\uDD12-\u00fc",
            "n".repeat(1024), "}" + "w".repeat(1023));

    private static final RedisKeys KEYS = RedisKeys.defaults();
    private static final Duration BOUND = Duration.ofSeconds(20); // "did not hang": far below the leases and the poll

    /** Raw access to the server (or shard) that holds a key. */
    interface Server {
        @Nullable String get(String key);

        long pttl(String key);

        /** Returns how many clients subscribe to the channel where releases of it are published. */
        long subscribers(String channel);
    }

    private LockNameScenario() {}

    /** Returns raw access to a standalone server. */
    static Server standalone(int port) {
        return on(key -> port, "NUMSUB");
    }

    /** Returns raw access to the master that serves each key's slot (the channel shares the key's slot). */
    static Server cluster(RedisClusterGroup cluster) {
        return on(key -> cluster.masterOf(key).port(), "SHARDNUMSUB");
    }

    private static Server on(ToIntFunction<String> portOf, String numsub) {
        return new Server() {
            @Override
            public @Nullable String get(String key) {
                return (String) Resp.call(portOf.applyAsInt(key), "GET", key);
            }

            @Override
            public long pttl(String key) {
                return (Long) Resp.call(portOf.applyAsInt(key), "PTTL", key);
            }

            @Override
            public long subscribers(String channel) {
                return Long.parseLong(((List<?>) Resp.call(portOf.applyAsInt(channel), "PUBSUB", numsub, channel)).get(1).toString());
            }
        };
    }

    /**
     * Acquires, renews, releases, waits, force-unlocks and asks isLocked for {@code name}. Each waiter
     * is a new client, closed after it was woken, so that one subscription is counted at a time.
     */
    static void run(String name, LockClient holder, Supplier<LockClient> newWaiter, Server server) throws Exception {
        String key = KEYS.lockKey(name);
        String channel = KEYS.releaseChannel(name);
        LockOptions shortLease = LockOptions.builder().leaseTime(Duration.ofMillis(900)).build();
        LockOptions longLease = LockOptions.builder().leaseTime(Duration.ofSeconds(120)).build();

        Lease renewed = holder.getLock(name, shortLease).acquire(BOUND);
        assertThat(RedisKeys.isHeldValue(server.get(key))).as("held in Redis under %s", key).isTrue();
        long[] low = {0};
        Await.until(BOUND, "the lease of " + key + " ran down a little", () -> (low[0] = server.pttl(key)) > 0 && low[0] < 800);
        Await.until(BOUND, "the watchdog renewed " + key, () -> server.pttl(key) > low[0]);
        assertThat(renewed.isValid()).isTrue();
        renewed.close();
        assertThat(RedisKeys.isHeldValue(server.get(key))).as("released").isFalse();

        Lease first = holder.getLock(name, longLease).acquire(BOUND);
        try (LockClient waiter = newWaiter.get()) {
            assertThat(waiter.getLock(name).isLocked()).isTrue();
            CompletableFuture<Lease> woken = waitFor(waiter, name, longLease, server, channel);
            first.close();
            assertThat(woken.get(BOUND.toSeconds(), TimeUnit.SECONDS).fencingToken()).isGreaterThan(first.fencingToken());
        }
        Await.until(BOUND, "the closed waiter's subscription ended", () -> server.subscribers(channel) == 0);

        Lease forced = holder.getLock(name, longLease).acquire(BOUND);
        try (LockClient waiter = newWaiter.get()) {
            CompletableFuture<Lease> woken = waitFor(waiter, name, longLease, server, channel);
            assertThat(holder.getLock(name).forceUnlock()).isTrue();
            Lease next = woken.get(BOUND.toSeconds(), TimeUnit.SECONDS);
            assertThat(next.fencingToken()).isGreaterThan(forced.fencingToken());
            assertThat(forced.isValid()).isFalse();
            next.close();
            assertThat(waiter.getLock(name).isLocked()).isFalse();
        }
        assertThat(holder.getLock(name).isLocked()).isFalse();
        Await.until(BOUND, "the closed waiter's subscription ended", () -> server.subscribers(channel) == 0);
    }

    /** Starts waiting for the lock on another thread; returns once the waiter is subscribed. */
    private static CompletableFuture<Lease> waitFor(LockClient client, String name, LockOptions options, Server server, String channel) {
        CompletableFuture<Lease> lease = CompletableFuture.supplyAsync(() -> {
            try {
                return client.getLock(name, options).acquire(BOUND.multipliedBy(2));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        });
        Await.until(BOUND, "the waiter subscribed to " + channel, () -> server.subscribers(channel) == 1);
        return lease;
    }
}
