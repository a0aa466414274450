package io.distlock.cli.demo;

import io.distlock.OpenOptions;
import io.distlock.cli.options.DeploymentConverter;
import io.distlock.cli.options.EnumIdConverter;
import io.distlock.cli.options.LeaseOption;
import io.distlock.cli.options.SeedOption;
import io.distlock.cli.options.StoreOption;
import io.distlock.cli.options.Targets;
import io.distlock.servers.deployment.Deployment;
import io.distlock.servers.deployment.DeploymentSettings;
import io.distlock.servers.deployment.DeploymentType;
import io.distlock.servers.deployment.Deployments;
import io.distlock.servers.deployment.ServerType.StartedServer;
import io.distlock.servers.deployment.WorkerClient;
import io.lettuce.core.RedisURI;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code distlock demo}: the stock-deduction race with real worker processes, once per locking strategy, with the
 * faults that break the textbook locks in production. The stock and the textbook locks live in a Redis (the demo's
 * store); distlock's own locks live wherever the registry can open: the store's Redis by default, a deployment the demo
 * starts ({@code --backend ID}, the checker's deployments) or the user's server ({@code --target URI}).
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = {"Race textbook Redis locks against distlock, selling the last items of a product.",
                "",
                "Several worker processes buy from one stock at once, once per locking strategy, while some holders stall "
                        + "or are frozen (SIGSTOP) mid-purchase, as in a long GC pause. The table shows which locks oversell. "
                        + "The stock and the textbook locks live in a Redis (--store, databases db and db+1); distlock's locks "
                        + "live there too unless --backend or --target says otherwise.",
                "",
                "Exit code: 0 when distlock-fenced did not oversell, 1 if it did, 2 for bad options."})
public final class DemoCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    StoreOption store = new StoreOption();

    @Option(names = "--backend", paramLabel = "ID", converter = DeploymentConverter.class,
            description = "Keep distlock's locks on a deployment the demo starts: redis, sentinel, cluster, redlock, zookeeper, etcd, postgres, "
                    + "mysql, h2 (those on the classpath; 'distlock backends' lists them). Default: the store's Redis.")
    @Nullable DeploymentType backend;

    @Option(names = "--target", paramLabel = "URI",
            description = "Keep distlock's locks on your server instead: redis://, redis-sentinel://, redis-cluster://, zk://, etcd://, "
                    + "jdbc:postgresql://, jdbc:mariadb://, jdbc:h2:... ('distlock backends' shows each form).")
    @Nullable String target;

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

    /** Reads {@code --strategies}. */
    static final class StrategyConverter extends EnumIdConverter<Strategy> {
        StrategyConverter() {
            super(Strategy.class, Strategy::id, "strategy");
        }
    }

    @Override
    public Integer call() throws Exception {
        List<Strategy> chosen = validate();
        Duration lease = this.lease.resolve(spec);
        long runSeed = seed.resolve();
        PrintStream progress = System.err;
        StartedServer embeddedStore = null;
        Deployment deployment = null;
        try {
            String storeUri = store.uri().orElse(null);
            if (storeUri == null) {
                progress.print("starting a redis-server for the stock and the textbook locks ... ");
                embeddedStore = Deployments.server("redis").launch();
                storeUri = embeddedStore.target();
                progress.println(storeUri);
            }
            List<WorkerClient> clients = new ArrayList<>();
            String locksAt;
            if (backend != null) {
                progress.print("starting " + backend.id() + " for distlock's locks (" + backend.description() + ") ... ");
                deployment = backend.create(new DeploymentSettings(workers, lease, 0));
                progress.println(deployment.start(Set.of()));
                for (int slot = 0; slot < workers; slot++) {
                    clients.add(deployment.workerClient(slot));
                }
                locksAt = backend.id();
            } else {
                String locks = target != null ? target : storeUri;
                clients.addAll(Collections.nCopies(workers, WorkerClient.of(locks)));
                locksAt = target != null ? Targets.redacted(target) : "the store's Redis";
            }
            progress.printf(Locale.ROOT, "racing %d attempts for %d items: %d worker processes x %d threads, lease %d ms, distlock's locks on %s, seed %d%n",
                    attempts, stock, workers, threads, lease.toMillis(), locksAt, runSeed);
            List<DemoResult> results = new ArrayList<>();
            DemoRace race = new DemoRace(storeUri, clients, threads, stock, attempts, runSeed, lease.toMillis(), stallRate, progress);
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
                System.out.println("repeat this run: ./distlock demo --seed " + runSeed + (backend == null ? "" : " --backend " + backend.id())
                        + (target == null ? "" : " --target '" + Targets.redacted(target) + "'")
                        + store.uri().map(uri -> " --store '" + Targets.redacted(uri) + "'").orElse(""));
            }
            // the guarantee distlock claims is the fenced one; the unfenced lease check is best effort
            boolean fencedOversold = results.stream()
                    .anyMatch(r -> r.strategy() == Strategy.DISTLOCK_FENCED && (r.oversold() > 0 || r.doubleSoldItems() > 0));
            return fencedOversold ? 1 : 0;
        } finally {
            if (deployment != null) {
                deployment.close();
            }
            if (embeddedStore != null) {
                embeddedStore.close();
            }
        }
    }

    private List<Strategy> validate() {
        require(workers >= 1 && workers <= 32, "--workers must be between 1 and 32, was " + workers);
        require(threads >= 1 && threads <= 64, "--threads must be between 1 and 64, was " + threads);
        require(stock >= 1 && stock <= 1_000_000, "--stock must be between 1 and 1000000, was " + stock);
        require(attempts >= 1 && attempts <= 1_000_000, "--attempts must be between 1 and 1000000, was " + attempts);
        require(stallRate >= 0 && stallRate <= 1, "--stall-rate must be between 0 and 1, was " + stallRate);
        require(backend == null || target == null, "--backend starts a deployment and --target names your server: give one of them");
        if (backend != null) {
            backend.unavailable().get().ifPresent(why -> require(false, why + "; or keep distlock's locks on your own server with --target URI"));
        }
        if (target != null) {
            Targets.check(spec, "--target", target, OpenOptions.defaults());
        }
        store.reachable(spec).ifPresent(uri -> require(RedisURI.create(uri).getDatabase() < 15,
                "--store must select a database below 15 (the stock uses the next one)"));
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
