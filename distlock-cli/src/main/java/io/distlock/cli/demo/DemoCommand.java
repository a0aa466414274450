package io.distlock.cli.demo;

import io.distlock.servers.RedisServer;
import io.distlock.servers.ZooKeeperServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.ThreadLocalRandom;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code distlock demo}: the stock-deduction race with real worker processes against a real Redis,
 * once per locking strategy, with the faults that break the textbook locks in production.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = {"Race textbook Redis locks against distlock, selling the last items of a product.",
                "",
                "Several worker processes buy from one stock at once, once per locking strategy, while some holders stall "
                        + "or are frozen (SIGSTOP) mid-purchase, as in a long GC pause. The table shows which locks oversell.",
                "",
                "Exit code: 0 when distlock-fenced did not oversell, 1 if it did, 2 for bad options."})
public final class DemoCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--redis", paramLabel = "URI", description = "Use this Redis (databases n and n+1) instead of starting an embedded one.")
    String redis;

    @Option(names = "--backend", defaultValue = "redis", paramLabel = "redis|zookeeper",
            description = "Backend of distlock's strategies (the textbook locks and the stock always use Redis). Default: ${DEFAULT-VALUE}.")
    String backend;

    @Option(names = "--zookeeper", paramLabel = "HOST:PORT",
            description = "With --backend zookeeper: use this ensemble instead of starting an in-process ZooKeeper.")
    String zookeeper;

    @Option(names = "--workers", defaultValue = "4", description = "Worker processes (JVMs). Default: ${DEFAULT-VALUE}.")
    int workers;

    @Option(names = "--threads", defaultValue = "4", description = "Buyer threads per worker. Default: ${DEFAULT-VALUE}.")
    int threads;

    @Option(names = "--stock", defaultValue = "100", description = "Items in stock. Default: ${DEFAULT-VALUE}.")
    int stock;

    @Option(names = "--attempts", defaultValue = "1000", description = "Purchase attempts in total. Default: ${DEFAULT-VALUE}.")
    int attempts;

    @Option(names = "--strategies", split = ",", paramLabel = "NAME",
            description = "Strategies to race, comma-separated. Default: all of no-lock, setnx-del, get-then-del, setnx-getset, set-px-short-lease, distlock, distlock-fenced.")
    List<String> strategies;

    @Option(names = "--seed", description = "Seed of the injected faults, to repeat a run. Default: random (printed).")
    Long seed;

    @Option(names = "--lease-ms", defaultValue = "200", description = "Lease of every lock with a lease; slow work takes 1.5x, a pause 2.5x. Default: ${DEFAULT-VALUE}.")
    long leaseMs;

    @Option(names = "--stall-rate", defaultValue = "0.05", description = "Share of purchases whose work stalls past the lease. Default: ${DEFAULT-VALUE}.")
    double stallRate;

    @Option(names = "--json", description = "Print the results as JSON on stdout (progress still goes to stderr).")
    boolean json;

    @Override
    public Integer call() throws Exception {
        List<Strategy> chosen = validate();
        long runSeed = seed != null ? seed : ThreadLocalRandom.current().nextLong(1, 1_000_000);
        PrintStream progress = System.err;
        RedisServer embedded = null;
        ZooKeeperServer embeddedZooKeeper = null;
        String zooKeeperConnect = zookeeper;
        String uri = redis;
        if (uri == null) {
            progress.print("starting an embedded redis-server ... ");
            embedded = RedisServer.launch();
            uri = embedded.uri();
            progress.println(uri);
        }
        try {
            if (backend.equals("zookeeper") && zooKeeperConnect == null) {
                progress.print("starting an in-process ZooKeeper ... ");
                embeddedZooKeeper = ZooKeeperServer.launch();
                zooKeeperConnect = embeddedZooKeeper.connectString();
                progress.println(zooKeeperConnect);
            }
            progress.printf(Locale.ROOT, "racing %d attempts for %d items: %d worker processes x %d threads, lease %d ms, distlock on %s, seed %d%n",
                    attempts, stock, workers, threads, leaseMs, backend, runSeed);
            List<DemoResult> results = new ArrayList<>();
            DemoRace race = new DemoRace(uri, zooKeeperConnect, workers, threads, stock, attempts, runSeed, leaseMs, stallRate, progress);
            for (int i = 0; i < chosen.size(); i++) {
                results.add(race.run(chosen.get(i), i + 1, chosen.size()));
            }
            if (json) {
                System.out.println(DemoResult.json(results, runSeed));
            } else {
                System.out.println();
                System.out.print(DemoResult.table(results));
                System.out.println();
                System.out.println("faults: p = worker processes frozen mid-purchase (SIGSTOP), s = purchases whose work outlived the lease");
                System.out.println("repeat this run: ./distlock demo --seed " + runSeed
                        + (backend.equals("redis") ? "" : " --backend " + backend) + (redis != null ? " --redis " + redis : ""));
            }
            // the guarantee distlock claims is the fenced one; the unfenced lease check is best effort
            boolean fencedOversold = results.stream()
                    .anyMatch(r -> r.strategy() == Strategy.DISTLOCK_FENCED && (r.oversold() > 0 || r.doubleSoldItems() > 0));
            return fencedOversold ? 1 : 0;
        } finally {
            if (embeddedZooKeeper != null) {
                embeddedZooKeeper.close();
            }
            if (embedded != null) {
                embedded.close();
            }
        }
    }

    private List<Strategy> validate() {
        require(workers >= 1 && workers <= 32, "--workers must be between 1 and 32, was " + workers);
        require(threads >= 1 && threads <= 64, "--threads must be between 1 and 64, was " + threads);
        require(stock >= 1 && stock <= 1_000_000, "--stock must be between 1 and 1000000, was " + stock);
        require(attempts >= 1 && attempts <= 1_000_000, "--attempts must be between 1 and 1000000, was " + attempts);
        require(leaseMs >= 50 && leaseMs <= 60_000, "--lease-ms must be between 50 and 60000, was " + leaseMs);
        require(stallRate >= 0 && stallRate <= 1, "--stall-rate must be between 0 and 1, was " + stallRate);
        require(backend.equals("redis") || backend.equals("zookeeper"), "--backend must be redis or zookeeper, was '" + backend + "'");
        require(zookeeper == null || backend.equals("zookeeper"), "--zookeeper needs --backend zookeeper");
        if (redis != null) {
            try {
                RedisURI parsed = RedisURI.create(redis);
                require(parsed.getDatabase() < 15, "--redis must select a database below 15 (the store uses the next one)");
                probe(redis);
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), "--redis: cannot parse '" + redis + "': " + e.getMessage());
            }
        }
        if (strategies == null || strategies.isEmpty()) {
            return Arrays.asList(Strategy.values());
        }
        LinkedHashSet<Strategy> chosen = new LinkedHashSet<>();
        for (String name : strategies) {
            try {
                chosen.add(Strategy.fromId(name));
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), "--strategies: " + e.getMessage());
            }
        }
        return new ArrayList<>(chosen);
    }

    private void probe(String uri) {
        RedisClient client = RedisClient.create();
        try (StatefulRedisConnection<String, String> connection = client.connect(RedisURI.create(uri))) {
            connection.sync().ping();
        } catch (RuntimeException e) {
            throw new ParameterException(spec.commandLine(), "--redis: cannot reach " + uri.replaceAll("//[^@/]*@", "//***@") + ": " + e.getMessage());
        } finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
        }
    }

    private void require(boolean condition, String message) {
        if (!condition) {
            throw new ParameterException(spec.commandLine(), message);
        }
    }
}
