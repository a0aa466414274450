package io.distlock.benchmarks;

import io.distlock.fencing.redis.FencedRedis;
import io.distlock.fencing.sql.FenceTable;
import io.distlock.fencing.sql.FencedColumn;
import io.distlock.servers.deployment.Deployments;
import io.distlock.servers.deployment.ServerType.StartedServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What a fencing guard costs per write, next to the same write unguarded, on each store, one writer: PostgreSQL,
 * MariaDB and H2 (a row update in auto-commit; a transaction of one update, with and without the fence table's check)
 * and Redis (SET and DECRBY, plain and through FencedRedis's script). Rounds alternate the order of the pair; the
 * median round is reported. Every guarded write carries a higher token than the last, as a new holder's would.
 *
 * <p>{@code java -cp distlock-benchmarks/target/distlock-benchmarks.jar io.distlock.benchmarks.FencingOverhead [writes per round] [rounds]}
 */
public final class FencingOverhead {
    /** One way to write, run {@code writes} times; returns per-write nanoseconds. */
    interface Write {
        void run(long i) throws Exception;
    }

    private final int writes;
    private final int rounds;
    private final List<String> rows = new ArrayList<>();
    private long token = 1;

    private FencingOverhead(int writes, int rounds) {
        this.writes = writes;
        this.rounds = rounds;
    }

    public static void main(String[] args) throws Exception {
        int writes = args.length > 0 ? Integer.parseInt(args[0]) : 5000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        FencingOverhead bench = new FencingOverhead(writes, rounds);
        // servers through the registry's providers, as every benchmark here starts them
        for (String[] database : new String[][] {{"postgres", "PostgreSQL"}, {"mariadb", "MariaDB"}, {"h2", "H2"}}) {
            System.err.println("starting " + database[1] + " ...");
            try (StartedServer server = Deployments.server(database[0]).launch()) {
                bench.sql(database[1], server.target());
            }
        }
        System.err.println("starting redis-server ...");
        try (StartedServer redis = Deployments.server("redis").launch()) {
            bench.redis(redis.target());
        }
        System.out.println();
        System.out.println("| store | write | unguarded p50 | guarded p50 | unguarded p99 | guarded p99 | unguarded writes/s | guarded writes/s |");
        System.out.println("|---|---|---:|---:|---:|---:|---:|---:|");
        bench.rows.forEach(System.out::println);
    }

    private void sql(String store, String url) throws Exception {
        try (Connection connection = DriverManager.getConnection(url)) {
            try (Statement ddl = connection.createStatement()) {
                ddl.execute("CREATE TABLE bench_stock (sku VARCHAR(40) NOT NULL PRIMARY KEY, quantity BIGINT NOT NULL, fence BIGINT)");
                ddl.execute("INSERT INTO bench_stock (sku, quantity) VALUES ('sku-1', 0)");
            }
            FenceTable fences = FenceTable.named("bench_fences");
            fences.create(connection);
            FencedColumn column = FencedColumn.of("bench_stock", "fence");
            PreparedStatement plain = connection.prepareStatement("UPDATE bench_stock SET quantity = ? WHERE sku = ?");
            compare(store, "row update (auto-commit)", i -> {
                plain.setLong(1, i);
                plain.setString(2, "sku-1");
                plain.executeUpdate();
            }, i -> column.update(connection, ++token, "quantity = ?", "sku = ?", i, "sku-1"));
            compare(store, "transaction: update + commit", i -> inTransaction(connection, unused -> {
                plain.setLong(1, i);
                plain.setString(2, "sku-1");
                plain.executeUpdate();
            }), i -> inTransaction(connection, unused -> {
                fences.check(connection, "sku-1", ++token);
                plain.setLong(1, i);
                plain.setString(2, "sku-1");
                plain.executeUpdate();
            }));
        }
    }

    private static void inTransaction(Connection connection, Write work) throws Exception {
        connection.setAutoCommit(false);
        try {
            work.run(0);
            connection.commit();
        } catch (SQLException | RuntimeException e) {
            connection.rollback();
            throw e;
        } finally {
            connection.setAutoCommit(true);
        }
    }

    private void redis(String uri) throws Exception {
        RedisClient client = RedisClient.create(uri);
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            RedisCommands<String, String> redis = connection.sync();
            FencedRedis fenced = FencedRedis.on(redis);
            compare("Redis", "SET", i -> redis.set("stock:1", Long.toString(i)), i -> fenced.set("stock:2", ++token, Long.toString(i)));
            redis.set("stock:3", "0");
            redis.set("stock:4", "0");
            compare("Redis", "DECRBY", i -> redis.decrby("stock:3", 1), i -> fenced.decrBy("stock:4", ++token, 1));
        } finally {
            client.shutdown();
        }
    }

    /** Runs the pair in alternating order for every round; adds a row with the median round of each. */
    private void compare(String store, String what, Write unguarded, Write guarded) throws Exception {
        System.err.printf(Locale.ROOT, "%s, %s: %d rounds of %d writes each way%n", store, what, rounds, writes);
        run(unguarded, writes / 5); // warm-up: connections, statement caches, the script
        run(guarded, writes / 5);
        List<long[]> plain = new ArrayList<>();
        List<long[]> fenced = new ArrayList<>();
        for (int round = 0; round < rounds; round++) {
            if (round % 2 == 0) {
                plain.add(run(unguarded, writes));
                fenced.add(run(guarded, writes));
            } else {
                fenced.add(run(guarded, writes));
                plain.add(run(unguarded, writes));
            }
        }
        long[] p = median(plain);
        long[] f = median(fenced);
        rows.add(String.format(Locale.ROOT, "| %s | %s | %.0f µs | %.0f µs | %.0f µs | %.0f µs | %,d | %,d |", store, what,
                percentile(p, 50) / 1e3, percentile(f, 50) / 1e3, percentile(p, 99) / 1e3, percentile(f, 99) / 1e3, perSecond(p), perSecond(f)));
    }

    private static long[] run(Write write, int count) throws Exception {
        long[] nanos = new long[count];
        for (int i = 0; i < count; i++) {
            long start = System.nanoTime();
            write.run(i);
            nanos[i] = System.nanoTime() - start;
        }
        return nanos;
    }

    /** The round whose total time is the median. */
    private static long[] median(List<long[]> rounds) {
        Map<Long, long[]> byTotal = new LinkedHashMap<>();
        rounds.forEach(round -> byTotal.put(Arrays.stream(round).sum(), round));
        long[] totals = byTotal.keySet().stream().mapToLong(Long::longValue).sorted().toArray();
        return byTotal.get(totals[totals.length / 2]);
    }

    private static double percentile(long[] nanos, int percent) {
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        return sorted[Math.min(sorted.length - 1, sorted.length * percent / 100)];
    }

    private static long perSecond(long[] nanos) {
        return Math.round(nanos.length / (Arrays.stream(nanos).sum() / 1e9));
    }
}
