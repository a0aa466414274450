package io.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.DistributedReadWriteLock;
import io.distlock.Lease;
import io.distlock.LockKind;
import io.distlock.redis.testing.RedisServerExtension;
import io.distlock.servers.Await;
import io.lettuce.core.RedisClient;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A grant made by someone else's call (a release) is published on the channel of the client it is for, not on one
 * that every waiting client listens on: with four processes waiting, every grant used to wake all four, and on two
 * cores those wake-ups slowed the handoff itself (benchmarks.md, x4 distlock-fair).
 */
class RedisGrantChannelTest {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private final ExecutorService threads = Executors.newCachedThreadPool();
    private final List<String[]> published = new CopyOnWriteArrayList<>();
    private RedisClient raw;

    @AfterEach
    void stop() {
        threads.shutdownNow();
        if (raw != null) {
            raw.shutdown();
        }
    }

    /** Records every message on the grant channels of {@code state} (its base channel and every channel below it). */
    private void listen(String state) {
        raw = RedisClient.create(redis.target());
        StatefulRedisPubSubConnection<String, String> connection = raw.connectPubSub();
        connection.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void message(String pattern, String channel, String message) {
                published.add(new String[] {channel, message});
            }
        });
        connection.sync().psubscribe(state + ":granted*");
    }

    @Test
    void aReleaseGrantsTheNextWaiterOnItsClientsChannelAloneWhileAnotherClientWaits() throws Exception {
        String name = "routed-" + System.nanoTime();
        String base = "distlock:{" + name + "}:fair:granted";
        listen("distlock:{" + name + "}:fair");
        try (RedisLockClient holder = RedisLockClient.create(redis.target()); RedisLockClient next = RedisLockClient.create(redis.target());
                RedisLockClient last = RedisLockClient.create(redis.target())) {
            Lease held = holder.getFairLock(name).acquire(Duration.ofSeconds(5));
            Future<Lease> second = threads.submit(() -> next.getFairLock(name).acquire(Duration.ofSeconds(30)));
            awaitWaiters(holder, name, 1);
            Future<Lease> third = threads.submit(() -> last.getFairLock(name).acquire(Duration.ofSeconds(30)));
            awaitWaiters(holder, name, 2);

            held.close(); // grants the second client's waiter
            Lease secondHeld = second.get(30, TimeUnit.SECONDS);
            Await.until(Duration.ofSeconds(10), "the grant's message", () -> published.size() == 1);
            String[] toSecond = published.get(0);
            String secondOwner = toSecond[1].substring(0, toSecond[1].indexOf(':'));
            assertThat(toSecond[0]).as("the channel of the granted owner's client only").isEqualTo(base + ":" + RedisQueues.clientOf(secondOwner));

            secondHeld.close(); // grants the third client's waiter
            third.get(30, TimeUnit.SECONDS).close();
            Await.until(Duration.ofSeconds(10), "the second grant's message", () -> published.size() >= 2);
            String[] toThird = published.get(1);
            String thirdOwner = toThird[1].substring(0, toThird[1].indexOf(':'));
            assertThat(RedisQueues.clientOf(thirdOwner)).isNotEqualTo(RedisQueues.clientOf(secondOwner));
            assertThat(toThird[0]).isEqualTo(base + ":" + RedisQueues.clientOf(thirdOwner));
        }
    }

    @Test
    void readersOfTwoClientsGrantedByOneReleaseAreToldOnTheirOwnChannels() throws Exception {
        String name = "routed-readers-" + System.nanoTime();
        String base = "distlock:{" + name + "}:rw:granted";
        listen("distlock:{" + name + "}:rw");
        try (RedisLockClient writer = RedisLockClient.create(redis.target()); RedisLockClient one = RedisLockClient.create(redis.target());
                RedisLockClient two = RedisLockClient.create(redis.target())) {
            Lease written = writer.getReadWriteLock(name).writeLock().acquire(Duration.ofSeconds(5));
            DistributedReadWriteLock first = one.getReadWriteLock(name);
            DistributedReadWriteLock second = two.getReadWriteLock(name);
            Future<Lease> readOne = threads.submit(() -> first.readLock().acquire(Duration.ofSeconds(30)));
            Future<Lease> readTwo = threads.submit(() -> second.readLock().acquire(Duration.ofSeconds(30)));
            Await.until(Duration.ofSeconds(30), "both readers wait", () -> writer.inspector().orElseThrow()
                    .show(name, LockKind.READ_WRITE_LOCK).map(state -> state.waiters() == 2).orElse(false));

            written.close(); // grants both readers in one call
            readOne.get(30, TimeUnit.SECONDS).close();
            readTwo.get(30, TimeUnit.SECONDS).close();
            Await.until(Duration.ofSeconds(10), "a message per client", () -> published.size() >= 2);
            Map<String, String> byChannel = published.stream().collect(Collectors.toMap(m -> m[0], m -> m[1]));
            assertThat(byChannel).hasSize(2);
            byChannel.forEach((channel, message) -> {
                assertThat(message).as("one grant per message: each client's own").doesNotContain(",");
                assertThat(channel).isEqualTo(base + ":" + RedisQueues.clientOf(message.substring(0, message.indexOf(':'))));
            });
        }
    }

    private static void awaitWaiters(RedisLockClient client, String name, int waiters) {
        Await.until(Duration.ofSeconds(30), waiters + " waiting", () -> client.inspector().orElseThrow()
                .show(name, LockKind.FAIR_LOCK).map(state -> state.waiters() == waiters).orElse(false));
    }
}
