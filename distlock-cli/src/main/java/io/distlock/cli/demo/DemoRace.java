package io.distlock.cli.demo;

import io.distlock.servers.deployment.WorkerClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.PrintStream;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Runs one strategy's race: reset the store, start the workers, show progress, gather the result. */
final class DemoRace {
    private static final long RACE_TIMEOUT_SECONDS = 300;

    private final String uri;
    private final List<WorkerClient> clients;
    private final int workers;
    private final int threads;
    private final int stock;
    private final int attempts;
    private final long seed;
    private final long leaseMs;
    private final double stallRate;
    private final PrintStream progress;
    private final boolean interactive = System.console() != null;

    /**
     * @param uri the store's Redis (the stock in database db+1, the textbook locks in db)
     * @param clients where each worker keeps distlock's locks, one per worker
     */
    DemoRace(String uri, List<WorkerClient> clients, int threads, int stock, int attempts, long seed, long leaseMs, double stallRate, PrintStream progress) {
        this.uri = uri;
        this.clients = List.copyOf(clients);
        this.workers = clients.size();
        this.threads = threads;
        this.stock = stock;
        this.attempts = attempts;
        this.seed = seed;
        this.leaseMs = leaseMs;
        this.stallRate = stallRate;
        this.progress = progress;
    }

    DemoResult run(Strategy strategy, int number, int of) throws Exception {
        RedisURI locksUri = RedisURI.create(uri);
        RedisURI storeUri = RedisURI.create(uri);
        storeUri.setDatabase(locksUri.getDatabase() + 1);
        RedisClient lettuce = RedisClient.create();
        try (StatefulRedisConnection<String, String> locks = lettuce.connect(locksUri);
                StatefulRedisConnection<String, String> storeConnection = lettuce.connect(storeUri)) {
            StockStore store = new StockStore(storeConnection.sync());
            store.reset(stock);
            locks.sync().del("demo:lock:" + strategy.id());
            String label = String.format(Locale.ROOT, "[%d/%d] %-19s", number, of, strategy.id());
            progress.print(label + " starting " + workers + " worker JVMs ...");
            progress.flush();
            List<String> args = new java.util.ArrayList<>(List.of("--store", uri, "--strategy", strategy.id(), "--threads", Integer.toString(threads),
                    "--attempts", Integer.toString(attempts), "--seed", Long.toString(seed), "--lease-ms", Long.toString(leaseMs),
                    "--stall-rate", Double.toString(stallRate)));
            try (WorkerProcesses processes = new WorkerProcesses(workers, args, worker -> clients.get(worker).args())) {
                processes.awaitReady(Duration.ofSeconds(120));
                long start = System.nanoTime();
                processes.go();
                long lastLine = 0;
                while (!processes.allDone()) {
                    long elapsed = System.nanoTime() - start;
                    if (elapsed > Duration.ofSeconds(RACE_TIMEOUT_SECONDS).toNanos()) {
                        throw new IllegalStateException(strategy.id() + " did not finish within " + RACE_TIMEOUT_SECONDS + " s");
                    }
                    if (interactive || elapsed - lastLine > Duration.ofSeconds(2).toNanos()) {
                        lastLine = elapsed;
                        progress.print((interactive ? "\r" : System.lineSeparator()) + label + " " + progressLine(store, elapsed));
                        progress.flush();
                    }
                    Thread.sleep(100);
                }
                double seconds = (System.nanoTime() - start) / 1e9;
                progress.print((interactive ? "\r" : System.lineSeparator()) + label + " " + progressLine(store, System.nanoTime() - start));
                progress.println(" done");
                if (processes.results().size() != workers) {
                    throw new IllegalStateException(strategy.id() + ": only " + processes.results().size() + " of " + workers
                            + " workers reported; their output:\n" + String.join("\n", processes.output()));
                }
                Map<String, Long> totals = sum(processes.results());
                if (totals.getOrDefault("errors", 0L) > 0) {
                    progress.println("  worker errors:\n  " + String.join("\n  ", processes.output()));
                }
                return new DemoResult(strategy, stock, store.sales(), store.doubleSoldItems(), totals.getOrDefault("waits", 0L),
                        totals.getOrDefault("aborted", 0L), totals.getOrDefault("rejected", 0L), totals.getOrDefault("lost", 0L),
                        totals.getOrDefault("pauses", 0L), totals.getOrDefault("stalls", 0L), totals.getOrDefault("errors", 0L),
                        seconds, attempts);
            }
        } finally {
            lettuce.shutdown(Duration.ZERO, Duration.ofSeconds(1));
        }
    }

    private String progressLine(StockStore store, long elapsedNanos) {
        long done = Math.min(attempts, store.attempts());
        long sold = store.sales();
        return String.format(Locale.ROOT, "attempts %4d/%d  sold %4d/%d%s  %5.1f s   ", done, attempts, sold, stock,
                sold > stock ? "  OVERSOLD" : "", elapsedNanos / 1e9);
    }

    private static Map<String, Long> sum(List<String> resultLines) {
        Map<String, Long> totals = new HashMap<>();
        for (String line : resultLines) {
            for (String pair : line.trim().split("\\s+")) {
                String[] kv = pair.split("=", 2);
                totals.merge(kv[0], Long.parseLong(kv[1]), Long::sum);
            }
        }
        return totals;
    }
}
