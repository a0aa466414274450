package io.distlock.fencing;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockClients;
import io.distlock.LockOptions;
import io.distlock.OpenOptions;
import io.distlock.fencing.redis.FencedRedis;
import io.distlock.fencing.sql.FencedColumn;
import io.distlock.servers.ChildJvm;
import io.distlock.servers.ParentJvm;
import io.lettuce.core.RedisClient;
import io.lettuce.core.cluster.RedisClusterClient;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.List;
import java.util.function.LongConsumer;

/**
 * A lock holder in a JVM of its own that is frozen (SIGSTOP) past its lease, as by a long GC pause, and writes through
 * a fencing guard once thawed: the late write the guard must refuse. Its watchdog is frozen with it, so its lease ends
 * on the server and the lock goes to the next holder, as in production; nothing in the test sleeps.
 *
 * <p>The holder's write is one of: {@code sql <jdbc url> <table> <sku> <value>} (a {@link FencedColumn} update of
 * {@code quantity} on column {@code fence}), {@code redis <uri> <key> <value>} or {@code redis-cluster <seed uri> <key>
 * <value>} (a {@link FencedRedis} SET).
 */
public final class PausedHolder {
    private static final Duration LEASE = Duration.ofSeconds(1);
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    private PausedHolder() {}

    /**
     * Runs the story on the lock {@code lockName} at {@code lockTarget}: a holder JVM acquires it and is frozen; this
     * JVM acquires it once the frozen lease has ended and makes {@code newerWrite} with its token; the holder is thawed
     * and makes its write with its old token. Returns the holder's outcome: {@code STALE <highest token>} if its write
     * was refused, {@code WROTE} if it landed.
     */
    public static String lateWriteAfterANewerHolder(String lockTarget, String lockName, List<String> write, LongConsumer newerWrite)
            throws InterruptedException {
        try (ChildJvm holder = ChildJvm.of(PausedHolder.class).jvmFlags(ChildJvm.QUICK_START_FLAGS).name("paused-holder")
                .args(List.of(lockTarget, lockName, Long.toString(LEASE.toMillis()), String.join("\u001f", write))).start()) {
            long staleToken = Long.parseLong(holder.awaitLine(line -> line.startsWith("HELD "), TIMEOUT).substring(5));
            holder.awaitReady(TIMEOUT);
            holder.pause();
            try (LockClient client = LockClients.open(lockTarget)) {
                Lease lease = client.getLock(lockName).acquire(TIMEOUT); // granted once the frozen holder's lease has ended
                try {
                    assertThat(lease.fencingToken()).as("the newer holder's token").isGreaterThan(staleToken);
                    newerWrite.accept(lease.fencingToken());
                } finally {
                    lease.close();
                }
            } finally {
                holder.resume();
            }
            holder.go();
            return holder.awaitLine(line -> line.startsWith("WROTE") || line.startsWith("STALE ") || line.startsWith("FAILED "), TIMEOUT);
        }
    }

    /** The holder JVM. Arguments: lock target, lock name, lease millis, the write (its words joined by U+001F). */
    public static void main(String[] args) throws Exception {
        LockOptions options = LockOptions.builder().leaseTime(Duration.ofMillis(Long.parseLong(args[2]))).build();
        try (LockClient client = LockClients.open(args[0], OpenOptions.defaults().lockOptions(options))) {
            Lease lease = client.getLock(args[1]).acquire();
            System.out.println("HELD " + lease.fencingToken());
            if (ParentJvm.readyThenAwaitGo().isEmpty()) {
                return;
            }
            // thawed: its lease ended while it was frozen, and it does not know yet; it writes with its token
            try {
                write(List.of(args[3].split("\u001f")), lease.fencingToken());
                System.out.println("WROTE");
            } catch (StaleTokenException stale) {
                System.out.println("STALE " + stale.highestSeen());
            } catch (RuntimeException e) {
                System.out.println("FAILED " + e);
            }
            System.out.flush();
        }
    }

    private static void write(List<String> write, long token) throws Exception {
        switch (write.get(0)) {
            case "sql" -> {
                try (Connection connection = DriverManager.getConnection(write.get(1))) {
                    FencedColumn.of(write.get(2), "fence").update(connection, token, "quantity = ?", "sku = ?", Long.parseLong(write.get(4)), write.get(3));
                }
            }
            case "redis" -> {
                RedisClient redis = RedisClient.create(write.get(1));
                try (var connection = redis.connect()) {
                    FencedRedis.on(connection.sync()).set(write.get(2), token, write.get(3));
                } finally {
                    redis.shutdown();
                }
            }
            case "redis-cluster" -> {
                RedisClusterClient cluster = RedisClusterClient.create(write.get(1));
                try (var connection = cluster.connect()) {
                    FencedRedis.on(connection.sync()).set(write.get(2), token, write.get(3));
                } finally {
                    cluster.shutdown();
                }
            }
            default -> throw new IllegalArgumentException("unknown write " + write);
        }
    }
}
