package io.distlock.cli.demo;

import io.distlock.cli.options.EnumIdConverter;
import io.distlock.cli.options.LeaseOption;
import io.distlock.cli.options.RedisOption;
import io.distlock.cli.options.SeedOption;
import io.distlock.etcd.testing.EtcdBinary;
import io.distlock.etcd.testing.EtcdCluster;
import io.distlock.redis.testing.RedisServer;
import io.distlock.zookeeper.testing.ZooKeeperServer;
import io.lettuce.core.RedisURI;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
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
                        + "or are frozen (SIGSTOP) mid-purchase, as in a long GC pause. The table shows which locks oversell. "
                        + "With --redis, the demo uses databases n and n+1 of that Redis.",
                "",
                "Exit code: 0 when distlock-fenced did not oversell, 1 if it did, 2 for bad options."})
public final class DemoCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    RedisOption redis = new RedisOption();

    @Option(names = "--backend", defaultValue = "redis", paramLabel = "redis|zookeeper|etcd|postgres|mysql|h2", converter = BackendConverter.class,
            description = "Backend of distlock's strategies (the textbook locks and the stock always use Redis). Default: ${DEFAULT-VALUE}.")
    DemoBackend backend;

    @Option(names = "--zookeeper", paramLabel = "HOST:PORT",
            description = "With --backend zookeeper: use this ensemble instead of starting an in-process ZooKeeper.")
    @Nullable String zookeeper;

    @Option(names = "--etcd", paramLabel = "URLS",
            description = "With --backend etcd: use these endpoints (http://host:port, comma-separated) instead of starting an etcd server.")
    @Nullable String etcd;

    @Option(names = "--jdbc-url", paramLabel = "URL",
            description = "With --backend postgres, mysql or h2: keep the locks in this database (user and password in the URL) instead of "
                    + "one the demo starts; required for mysql.")
    @Nullable String jdbcUrl;

    @Option(names = "--workers", paramLabel = "N", defaultValue = "4", description = "Worker processes (JVMs). Default: ${DEFAULT-VALUE}.")
    int workers;

    @Option(names = "--threads", paramLabel = "N", defaultValue = "4", description = "Buyer threads per worker. Default: ${DEFAULT-VALUE}.")
    int threads;

    @Option(names = "--stock", paramLabel = "N", defaultValue = "100", description = "Items in stock. Default: ${DEFAULT-VALUE}.")
    int stock;

    @Option(names = "--attempts", paramLabel = "N", defaultValue = "1000", description = "Purchase attempts in total. Default: ${DEFAULT-VALUE}.")
    int attempts;

    @Option(names = "--strategies", split = ",", paramLabel = "NAME", converter = StrategyConverter.class,
            description = "Strategies to race, comma-separated. Default: all of no-lock, setnx-del, get-then-del, setnx-getset, set-px-short-lease, distlock, distlock-fenced.")
    @Nullable List<Strategy> strategies;

    @Mixin
    SeedOption seed = new SeedOption();

    /** Every lock with a lease uses it; slow work takes 1.5 leases, a pause 2.5. */
    @Mixin
    LeaseOption lease = new LeaseOption(Duration.ofMillis(200), Duration.ofMillis(50), Duration.ofSeconds(60));

    @Option(names = "--stall-rate", paramLabel = "RATE", defaultValue = "0.05", description = "Share of purchases whose work stalls past the lease. Default: ${DEFAULT-VALUE}.")
    double stallRate;

    @Option(names = "--json", description = "Print the results as JSON on stdout (progress still goes to stderr).")
    boolean json;

    /** Reads {@code --backend}. */
    static final class BackendConverter extends EnumIdConverter<DemoBackend> {
        BackendConverter() {
            super(DemoBackend.class, DemoBackend::id, "backend");
        }
    }

    /** Reads {@code --strategies}. */
    static final class StrategyConverter extends EnumIdConverter<Strategy> {
        StrategyConverter() {
            super(Strategy.class, Strategy::id, "strategy");
        }
    }

    @Override
    public Integer call() throws Exception {
        List<Strategy> chosen = validate();
        long leaseMs = lease.resolve(spec).toMillis();
        long runSeed = seed.resolve();
        PrintStream progress = System.err;
        RedisServer embedded = null;
        ZooKeeperServer embeddedZooKeeper = null;
        String zooKeeperConnect = zookeeper;
        String database = jdbcUrl;
        String etcdEndpoints = etcd;
        EtcdCluster embeddedEtcd = null;
        AutoCloseable embeddedDatabase = null;
        String uri = redis.uri().orElse(null);
        if (uri == null) {
            progress.print("starting an embedded redis-server ... ");
            embedded = RedisServer.launch();
            uri = embedded.uri();
            progress.println(uri);
        }
        try {
            if (backend == DemoBackend.ZOOKEEPER && zooKeeperConnect == null) {
                progress.print("starting an in-process ZooKeeper ... ");
                embeddedZooKeeper = ZooKeeperServer.launch();
                zooKeeperConnect = embeddedZooKeeper.connectString();
                progress.println(zooKeeperConnect);
            }
            if (backend == DemoBackend.ETCD && etcdEndpoints == null) {
                progress.print("starting an etcd server (" + EtcdBinary.version() + ") ... ");
                embeddedEtcd = EtcdCluster.launch();
                etcdEndpoints = embeddedEtcd.endpoints();
                progress.println(etcdEndpoints);
            }
            if (backend.sql() && database == null) {
                progress.print("starting " + (backend == DemoBackend.POSTGRES ? "a PostgreSQL server" : "an in-process H2 TCP server") + " ... ");
                EmbeddedDatabase started = EmbeddedDatabase.start(backend);
                embeddedDatabase = started;
                database = started.jdbcUrl();
                progress.println(database.replaceAll("(?i)(password=)[^&;]*", "$1***"));
            }
            progress.printf(Locale.ROOT, "racing %d attempts for %d items: %d worker processes x %d threads, lease %d ms, distlock on %s, seed %d%n",
                    attempts, stock, workers, threads, leaseMs, backend.id(), runSeed);
            List<DemoResult> results = new ArrayList<>();
            List<String> backendArgs = zooKeeperConnect != null && backend == DemoBackend.ZOOKEEPER ? List.of("--zookeeper", zooKeeperConnect)
                    : backend == DemoBackend.ETCD ? List.of("--etcd", etcdEndpoints)
                    : database != null ? List.of("--jdbc", database) : List.of();
            DemoRace race = new DemoRace(uri, backendArgs, workers, threads, stock, attempts, runSeed, leaseMs, stallRate, progress);
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
                        + (backend == DemoBackend.REDIS ? "" : " --backend " + backend.id()) + redis.uri().map(u -> " --redis " + u).orElse("")
                        + (jdbcUrl == null ? "" : " --jdbc-url '" + jdbcUrl + "'") + (etcd == null ? "" : " --etcd " + etcd));
            }
            // the guarantee distlock claims is the fenced one; the unfenced lease check is best effort
            boolean fencedOversold = results.stream()
                    .anyMatch(r -> r.strategy() == Strategy.DISTLOCK_FENCED && (r.oversold() > 0 || r.doubleSoldItems() > 0));
            return fencedOversold ? 1 : 0;
        } finally {
            if (embeddedDatabase != null) {
                embeddedDatabase.close();
            }
            if (embeddedZooKeeper != null) {
                embeddedZooKeeper.close();
            }
            if (embeddedEtcd != null) {
                embeddedEtcd.close();
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
        require(stallRate >= 0 && stallRate <= 1, "--stall-rate must be between 0 and 1, was " + stallRate);
        require(zookeeper == null || backend == DemoBackend.ZOOKEEPER, "--zookeeper needs --backend zookeeper");
        require(etcd == null || backend == DemoBackend.ETCD, "--etcd needs --backend etcd");
        require(backend != DemoBackend.ETCD || etcd != null || EtcdBinary.available(), "--backend etcd needs an etcd server: "
                + EtcdBinary.HOW_TO_INSTALL + ", or pass --etcd http://host:port");
        require(jdbcUrl == null || backend.sql(), "--jdbc-url needs --backend postgres, mysql or h2");
        require(jdbcUrl == null || jdbcUrl.startsWith("jdbc:"), "--jdbc-url must start with jdbc:");
        require(backend != DemoBackend.MYSQL || jdbcUrl != null, "--backend mysql needs --jdbc-url (the demo cannot start a MySQL or MariaDB "
                + "server: their binaries are not in the CLI), e.g. --jdbc-url 'jdbc:mariadb://127.0.0.1:3306/test?user=root'");
        redis.reachable(spec).ifPresent(uri -> require(RedisURI.create(uri).getDatabase() < 15,
                "--redis must select a database below 15 (the store uses the next one)"));
        if (strategies == null || strategies.isEmpty()) {
            return Arrays.asList(Strategy.values());
        }
        return new ArrayList<>(new LinkedHashSet<>(strategies));
    }

    private void require(boolean condition, String message) {
        if (!condition) {
            throw new ParameterException(spec.commandLine(), message);
        }
    }
}
