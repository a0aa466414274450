package io.distlock.cli.bench;

import io.distlock.DistributedLock;
import io.distlock.LockClient;
import io.distlock.redis.RedisKeys;
import io.distlock.LockClients;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * Scenario hold10k: one client holds many locks with its watchdog on, and we count what keeping them
 * costs: Redis commands per second, client CPU, and Redis memory per held lock.
 */
public final class HoldManyLocks {
    private HoldManyLocks() {}

    /** What holding cost. */
    public record Result(String implementation, int locks, double seconds, double commandsPerSecond, double clientCpuPercent,
            double bytesPerLock, long keyMemoryUsage) {
        /** Returns the result as a table row. */
        public String row() {
            return String.format(Locale.ROOT, "%-8s %-20s %8d %14.1f %12.1f %14.0f %14d", "hold10k", implementation, locks,
                    commandsPerSecond, clientCpuPercent, bytesPerLock, keyMemoryUsage);
        }

        /** Returns the table header. */
        public static String header() {
            return String.format(Locale.ROOT, "%-8s %-20s %8s %14s %12s %14s %14s", "scenario", "implementation", "locks",
                    "scripts/s", "client CPU %", "bytes/lock", "MEMORY USAGE");
        }
    }

    /** Holds {@code locks} locks with {@code holder} for {@code hold} on a Redis that is otherwise idle (nothing is deleted; numbers are deltas). */
    public static Result run(String implementation, Holder holder, String redisUri, int locks, Duration hold, PrintStream progress)
            throws Exception {
        RedisClient adminClient = RedisClient.create(redisUri);
        try (StatefulRedisConnection<String, String> admin = adminClient.connect()) {
            RedisCommands<String, String> redis = admin.sync();
            long memoryBefore = usedMemory(redis);
            try {
                for (int i = 0; i < locks; i++) {
                    holder.hold("hold:" + i);
                }
                long bytes = usedMemory(redis) - memoryBefore;
                Long keyUsage = redis.memoryUsage(holder.keyOf("hold:0"));
                long callsBefore = totalCalls(redis);
                long cpuBefore = processCpuNanos();
                long start = System.nanoTime();
                progress.printf(Locale.ROOT, "  holding %,d locks; measuring renewals for %ds%n", locks, hold.toSeconds());
                long end = start + hold.toNanos();
                for (long left = hold.toNanos(); left > 0; left = end - System.nanoTime()) {
                    Thread.sleep(Math.max(1, Math.min(TimeUnit.NANOSECONDS.toMillis(left), 10_000)));
                    long elapsed = System.nanoTime() - start;
                    if (end - System.nanoTime() > TimeUnit.SECONDS.toNanos(1)) {
                        progress.printf(Locale.ROOT, "  %ds of %ds, %,d script calls so far%n", TimeUnit.NANOSECONDS.toSeconds(elapsed),
                                hold.toSeconds(), totalCalls(redis) - callsBefore);
                    }
                }
                double seconds = (System.nanoTime() - start) / 1e9;
                long cpu = processCpuNanos() - cpuBefore;
                long calls = totalCalls(redis) - callsBefore;
                return new Result(implementation, locks, seconds, calls / seconds, 100.0 * cpu / 1e9 / seconds,
                        (double) bytes / locks, keyUsage == null ? -1 : keyUsage);
            } finally {
                holder.close();
            }
        } finally {
            adminClient.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }

    private static long usedMemory(RedisCommands<String, String> redis) {
        return field(redis.info("memory"), "used_memory:");
    }

    /**
     * Counts the commands clients sent while holding: script calls (both clients renew with scripts).
     * INFO commandstats also counts the commands run inside scripts, which are not round trips.
     */
    private static long totalCalls(RedisCommands<String, String> redis) {
        long calls = 0;
        for (String line : redis.info("commandstats").split("\r?\n")) {
            int at = line.indexOf("calls=");
            if ((line.startsWith("cmdstat_eval:") || line.startsWith("cmdstat_evalsha:")) && at > 0) {
                String rest = line.substring(at + 6);
                calls += Long.parseLong(rest.substring(0, rest.indexOf(',')));
            }
        }
        return calls;
    }

    private static long field(String info, String name) {
        for (String line : info.split("\r?\n")) {
            if (line.startsWith(name)) {
                return Long.parseLong(line.substring(name.length()).trim());
            }
        }
        throw new IllegalStateException("no " + name + " in INFO");
    }

    private static long processCpuNanos() {
        var os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.OperatingSystemMXBean sun) {
            return sun.getProcessCpuTime();
        }
        return 0;
    }

    /** A client that acquires locks and keeps them until closed. */
    public interface Holder extends AutoCloseable {
        /** Acquires the named lock and keeps it (with renewal). */
        void hold(String name) throws Exception;

        /** Returns the Redis key of the named lock. */
        String keyOf(String name);

        /** Releases everything and closes the client. */
        @Override
        void close();
    }

    /** Returns a holder on a distlock Redis client. */
    public static Holder distlock(String redisUri) {
        return new DistlockHolder(redisUri);
    }

    private static final class DistlockHolder implements Holder {
        private final LockClient client;
        private final List<DistributedLock> held = new ArrayList<>();

        DistlockHolder(String uri) {
            client = LockClients.open(uri);
        }

        @Override
        public void hold(String name) {
            DistributedLock lock = client.getLock(name);
            lock.lock();
            held.add(lock);
        }

        @Override
        public String keyOf(String name) {
            return RedisKeys.defaults().lockKey(name);
        }

        @Override
        public void close() {
            held.forEach(DistributedLock::unlock);
            client.close();
        }
    }
}
