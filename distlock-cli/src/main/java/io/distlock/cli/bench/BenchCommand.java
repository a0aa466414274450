package io.distlock.cli.bench;

import io.distlock.LockClient;
import io.distlock.LockClients;
import io.distlock.LockOptions;
import io.distlock.OpenOptions;
import io.distlock.cli.options.DurationConverter;
import io.distlock.cli.options.Targets;
import io.distlock.servers.deployment.Deployments;
import io.distlock.servers.deployment.ServerType;
import io.distlock.servers.deployment.ServerType.StartedServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code distlock bench}: measures distlock on your own server (any backend the registry opens), next to the raw Redis
 * limit when it is a Redis, with the scenario names of the side-by-side benchmarks in {@code distlock-benchmarks}
 * (which add Redisson, Curator and the others and are not shipped).
 */
@Command(name = "bench", mixinStandardHelpOptions = true,
        description = {"Measure distlock's lock on your server; on a Redis, next to the raw limit.",
                "",
                "Reports lock+unlock cycles/s and latency, and on a Redis the same for two trivial EVALs per cycle (the raw limit). "
                + "Scenarios: u1 (1 thread, 1 name), u16 (16 threads, 16 names), c16 (16 threads, 1 name), hold10k (hold many locks "
                + "with the watchdog: script calls/s, CPU, Redis memory; a redis:// target only), names300k (lock and unlock "
                + "300,000 distinct names, or --names: the client's heap growth afterwards), growth (hold 1, 10, ... 100,000 locks with one "
                + "client: round trips/s to keep them, heap per held lock, acquire p50/p99 at each level; on servers of this machine).",
                "",
                "Without --target, the bench starts a redis-server. With --target, only distlock's own keys, rows or nodes and "
                + "bench names are written; the numbers are deltas, so measure an otherwise idle server. Progress goes to stderr, "
                + "the table to stdout. growth and names300k run on each of --backends in turn (servers the bench starts) "
                + "when there is no --target.",
                "",
                "Exit code: 0 when every run completed, 2 for bad options or an unreachable --target, 4 if a run failed."})
public final class BenchCommand implements Callable<Integer> {
    /** A target one Redis server answers (not Sentinel, not Cluster): the raw EVAL limit and hold10k's INFO apply. */
    private static final Pattern PLAIN_REDIS = Pattern.compile("rediss?://", Pattern.CASE_INSENSITIVE);

    @Spec
    CommandSpec spec;

    @Option(names = "--target", paramLabel = "URI",
            description = "Measure on your server: redis://, redis-sentinel://, redis-cluster://, zk://, etcd://, jdbc:postgresql://, "
                    + "jdbc:mariadb://, jdbc:h2:... ('distlock backends' shows each form). Default: a redis-server the bench starts.")
    @Nullable String target;

    @Option(names = "--scenarios", split = ",", defaultValue = "u1,u16,c16", paramLabel = "NAME",
            description = "Scenarios to run: u1, u16, c16, hold10k, names300k, growth. Default: ${DEFAULT-VALUE}; add hold10k for the "
                    + "watchdog cost, names300k for per-name memory, growth for cost against the number of locks held.")
    List<String> scenarios;

    @Option(names = "--warmup", defaultValue = "2s", paramLabel = "DURATION", description = "Warm-up per run. Default: ${DEFAULT-VALUE}.")
    Duration warmup;

    @Option(names = "--duration", defaultValue = "5s", paramLabel = "DURATION", description = "Measured time per run. Default: ${DEFAULT-VALUE}.")
    Duration duration;

    @Option(names = "--rounds", paramLabel = "N", defaultValue = "3", description = "Rounds; the median is reported. Default: ${DEFAULT-VALUE}.")
    int rounds;

    @Option(names = "--hold", defaultValue = "60s", paramLabel = "DURATION", description = "How long hold10k holds its locks. Default: ${DEFAULT-VALUE}.")
    Duration hold;

    @Option(names = "--hold-locks", paramLabel = "N", defaultValue = "10000", description = "Locks hold10k holds. Default: ${DEFAULT-VALUE}.")
    int holdLocks;

    @Option(names = "--backends", split = ",", defaultValue = "redis", paramLabel = "ID",
            description = "Without --target: the servers growth and names300k run on, one after the other, each started by the bench: "
                    + "redis, zookeeper, etcd (needs etcd on PATH), postgres, mariadb, h2. Default: ${DEFAULT-VALUE}.")
    List<String> backends;

    @Option(names = "--names", paramLabel = "N", defaultValue = "300000",
            description = "Distinct names names300k locks and unlocks. Default: ${DEFAULT-VALUE}.")
    int names;

    @Option(names = "--growth-max", paramLabel = "N", defaultValue = "100000",
            description = "The most locks growth holds (levels 1, 10, 100, ... up to N). Default: ${DEFAULT-VALUE}.")
    int growthMax;

    @Option(names = "--window", defaultValue = "30s", paramLabel = "DURATION",
            description = "How long growth counts round trips at each level (a lease's renewals, at the default lease). "
                    + "Default: ${DEFAULT-VALUE}.")
    Duration window;

    @Option(names = "--fill-limit", defaultValue = "3m", paramLabel = "DURATION",
            description = "How long growth may take to acquire the locks of one level; a level not reached by then is measured "
                    + "where it stalled, and that backend grows no further. Default: ${DEFAULT-VALUE}.")
    Duration fillLimit;

    @Option(names = "--lease", paramLabel = "DURATION",
            description = "growth's lease time. Default: the backend's (Redis and SQL: a lease per lock, renewed by the watchdog; "
                    + "ZooKeeper and etcd: the session's).")
    @Nullable Duration lease;

    @Option(names = "--growth-rows", split = ",", paramLabel = "FILE",
            description = "With --scenarios growth: measure nothing, but draw --chart from the growth rows of earlier runs' output "
                    + "(one backend per run gives each its own heap baseline).")
    List<Path> growthRows;

    @Option(names = "--chart", paramLabel = "FILE", description = "Also draw growth's results as an SVG chart to FILE.")
    @Nullable Path chart;

    @Option(names = "--json", paramLabel = "FILE",
            description = "Also write the results as JSON to FILE (the format of the side-by-side benchmarks' results.json), for a "
                    + "later --compare.")
    @Nullable Path json;

    @Option(names = "--compare", paramLabel = "FILE",
            description = "Print the results next to an earlier run's JSON (--json, or a results.json of distlock-benchmarks): "
                    + "cycles/s, p50 and p99 now and then, and the ratio, per scenario and implementation.")
    @Nullable Path compare;

    @Override
    public Integer call() throws Exception {
        Report.Saved earlier = null;
        if (compare != null) {
            try {
                earlier = Report.read(Files.readString(compare));
            } catch (IOException | IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), "--compare " + compare + ": " + (e instanceof NoSuchFileException
                        ? "no such file" : e.getMessage()));
            }
        }
        if (duration.isZero() || hold.isZero() || window.isZero() || fillLimit.isZero() || (lease != null && lease.isZero()) || rounds < 1 || holdLocks < 1 || names < 1 || growthMax < 1) {
            throw new ParameterException(spec.commandLine(), "--duration, --hold, --window, --fill-limit and --lease must be longer than 0s, --rounds, --hold-locks, "
                    + "--names and --growth-max at least 1");
        }
        boolean holdScenario = false;
        boolean namesScenario = false;
        boolean growthScenario = false;
        List<Scenario> chosen = new ArrayList<>();
        for (String name : scenarios) {
            if (name.trim().equalsIgnoreCase("hold10k")) {
                holdScenario = true;
                continue;
            }
            if (name.trim().equalsIgnoreCase("names300k")) {
                namesScenario = true;
                continue;
            }
            if (name.trim().equalsIgnoreCase("growth")) {
                growthScenario = true;
                continue;
            }
            try {
                chosen.add(Scenario.fromId(name));
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), "--scenarios: " + e.getMessage() + ", hold10k, names300k, growth");
            }
        }
        String backendId = "redis";
        if (target != null) {
            try (LockClient probe = Targets.open(spec, "--target", target, OpenOptions.defaults())) {
                backendId = LockClients.providerFor(target).id();
            }
        }
        boolean plainRedis = target == null || PLAIN_REDIS.matcher(target).lookingAt();
        if (holdScenario && !plainRedis) {
            throw new ParameterException(spec.commandLine(), "--scenarios hold10k reads the Redis server's own counters (INFO): it needs a "
                    + "redis:// or rediss:// --target, or none");
        }
        List<ServerType> servers = new ArrayList<>();
        if (target == null) {
            for (String id : backends) {
                try {
                    servers.add(Deployments.server(id.trim().toLowerCase(Locale.ROOT)));
                } catch (IllegalArgumentException e) {
                    throw new ParameterException(spec.commandLine(), "--backends: " + e.getMessage());
                }
            }
        } else if (growthScenario) {
            try {
                Growth.through(target, 1);
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), "--scenarios growth: " + e.getMessage());
            }
        }
        StartedServer embedded = target == null && (!chosen.isEmpty() || holdScenario) ? Deployments.server("redis").launch() : null;
        String uri = embedded == null ? (target == null ? "" : target) : embedded.target();
        String distlockId = "distlock-" + backendId;
        List<String> contenders = plainRedis ? List.of("raw-eval", distlockId) : List.of(distlockId);
        try {
            List<Measurement> medians = new ArrayList<>();
            for (Scenario scenario : chosen) {
                medians.addAll(ScenarioRun.medians(contenders,
                        id -> id.equals("raw-eval") ? BasicContenders.rawEval(uri) : BasicContenders.distlock(id, LockClients.open(uri)),
                        scenario, rounds, warmup, duration, System.err));
            }
            if (!medians.isEmpty()) {
                Report report = new Report(medians);
                System.out.println(report.table());
                if (earlier != null) {
                    System.out.println("compared with " + compare + ":");
                    System.out.println(report.compare(earlier));
                }
                if (json != null) {
                    Map<String, String> environment = new LinkedHashMap<>();
                    environment.put("date", Instant.now().toString());
                    environment.put("cores", Integer.toString(Runtime.getRuntime().availableProcessors()));
                    environment.put("jdk", System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
                    environment.put("target", target == null ? "a redis-server the bench started" : Targets.redacted(target));
                    environment.put("rounds", Integer.toString(rounds));
                    environment.put("secondsPerRun", warmup.toMillis() / 1e3 + "+" + duration.toMillis() / 1e3);
                    Files.writeString(json, report.json(environment, "[]"));
                    System.err.println("wrote " + json);
                }
            }
            if (holdScenario) {
                System.err.printf(Locale.ROOT, "hold10k: holding %d locks for %s ...%n", holdLocks, DurationConverter.format(hold));
                HoldManyLocks.Result result = HoldManyLocks.run(distlockId, HoldManyLocks.distlock(uri), uri, holdLocks, hold, System.err);
                System.out.println(HoldManyLocks.Result.header());
                System.out.println(result.row());
            }
            if (namesScenario || growthScenario) {
                List<ManyNames.Result> named = new ArrayList<>();
                List<Growth.Point> grown = new ArrayList<>();
                List<String> failedBackends = new ArrayList<>();
                if (growthRows != null && !growthRows.isEmpty()) {
                    for (Path rows : growthRows) {
                        grown.addAll(Growth.parse(Files.readAllLines(rows)));
                    }
                    if (grown.isEmpty()) {
                        throw new ParameterException(spec.commandLine(), "--growth-rows: no growth rows in " + growthRows);
                    }
                }
                for (int i = 0; growthRows == null && i < (target == null ? servers.size() : 1); i++) {
                    String id = target == null ? servers.get(i).id() : backendId;
                    try (StartedServer server = target == null ? servers.get(i).launch() : null) {
                        String on = server == null ? Objects.requireNonNull(target) : server.target();
                        if (namesScenario) {
                            System.err.printf(Locale.ROOT, "names300k on %s: locking and unlocking %,d distinct names ...%n", id, names);
                            named.add(ManyNames.run(id, on, names, System.err));
                        }
                        if (growthScenario) {
                            System.err.printf(Locale.ROOT, "growth on %s: holding up to %,d locks ...%n", id, growthMax);
                            // a backend that fails mid-run (the measurement itself can overload it) ends its own line only
                            OpenOptions options = lease == null ? OpenOptions.defaults()
                                    : OpenOptions.defaults().lockOptions(LockOptions.builder().leaseTime(lease).build());
                            try {
                                grown.addAll(Growth.run(id, on, options, growthMax, window.toNanos(), fillLimit.toNanos(), System.err));
                            } catch (RuntimeException e) {
                                failedBackends.add(id + ": " + e);
                                System.err.printf(Locale.ROOT, "growth on %s failed: %s%n", id, e);
                            }
                        }
                    }
                }
                if (!named.isEmpty()) {
                    System.out.println(ManyNames.Result.header());
                    named.forEach(r -> System.out.println(r.row()));
                }
                if (!grown.isEmpty()) {
                    System.out.println(Growth.Point.header());
                    grown.forEach(p -> System.out.println(p.row()));
                    if (chart != null) {
                        Files.writeString(chart, GrowthChart.svg(grown, Runtime.getRuntime().availableProcessors() + " cores, "
                                + System.getProperty("java.vm.name") + " " + System.getProperty("java.version") + ", "
                                + java.time.LocalDate.now()));
                        System.err.println("wrote " + chart);
                    }
                }
                if (!failedBackends.isEmpty()) {
                    System.out.println("growth failed on " + String.join("; ", failedBackends));
                    return 4;
                }
            }
            return 0;
        } finally {
            if (embedded != null) {
                embedded.close();
            }
        }
    }
}
