package io.distlock.benchmarks;

import io.distlock.LockClients;
import io.distlock.cli.bench.Contender;
import io.distlock.cli.bench.HoldManyLocks;
import io.distlock.cli.bench.Measurement;
import io.distlock.cli.bench.Report;
import io.distlock.cli.bench.Scenario;
import io.distlock.cli.bench.ScenarioRun;
import io.distlock.cli.options.DurationConverter;
import io.distlock.servers.TcpProxy;
import io.distlock.servers.deployment.Deployments;
import io.distlock.servers.deployment.ServerType;
import io.distlock.servers.deployment.ServerType.StartedServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * Runs every scenario for every implementation against the same servers in one run, alternating the
 * order of implementations each round so that drift on a noisy machine hits all alike, and reports
 * the median round of each.
 */
@Command(name = "distlock-benchmarks", mixinStandardHelpOptions = true,
        description = "Lock+unlock throughput and latency of distlock, Redisson, Curator, Spring Integration, ShedLock, a textbook lock "
                + "and the raw Redis limit.")
public final class BenchMain implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--target", paramLabel = "URI",
            description = "A server of yours to measure on instead of one the run starts, as a registry target (repeatable; one each of "
                    + "redis://host:6379, zk://host:2181, etcd://host:2379, and any number of jdbc:postgresql:// or jdbc:mariadb:// URLs, "
                    + "which replace --databases). Default: a redis-server on a free port, an in-process ZooKeeper, an etcd server "
                    + "(needs an etcd binary), and the --databases.")
    List<String> targets;

    private @Nullable String redis;
    private @Nullable String zookeeper;
    private @Nullable String etcd;
    private final List<String> jdbcUrls = new ArrayList<>();

    @Option(names = "--databases", split = ",", defaultValue = "postgres,mariadb",
            description = "Databases to start for the SQL implementations (postgres, mariadb). Default: ${DEFAULT-VALUE}.")
    List<String> databases;

    @Option(names = "--scenarios", split = ",", defaultValue = "u1,u16,c16,x4,hold10k", description = "Default: ${DEFAULT-VALUE}.")
    List<String> scenarios;

    @Option(names = "--hold", defaultValue = "60s", paramLabel = "DURATION",
            description = "How long the hold10k scenario holds its locks. Default: ${DEFAULT-VALUE}.")
    Duration hold;

    @Option(names = "--hold-locks", defaultValue = "10000", description = "Locks held in hold10k. Default: ${DEFAULT-VALUE}.")
    int holdLocks;

    @Option(names = "--impls", split = ",", description = "Implementations (default: all): raw-eval, distlock-redis, distlock-redis-cohort, "
            + "redisson-rlock, redisson-fenced, spring-spin, spring-pubsub, textbook-setnx, distlock-fair, redisson-fair, distlock-zookeeper, curator-mutex, "
            + "distlock-etcd, jetcd-lock, "
            + "distlock-jdbc, shedlock-jdbc, spring-jdbc (the last three on every database); "
            + "only when named: distlock-rw, redisson-rw (90%% reads, every tenth cycle of a thread writes), "
            + "distlock-semaphore, redisson-semaphore (4 permits), meant for c16; and the same kinds on ZooKeeper, etcd and SQL: "
            + "distlock-zookeeper-fair, -rw, -semaphore, distlock-etcd-fair, -rw, -semaphore, distlock-jdbc-fair, -rw, -semaphore; "
            + "distlock-jdbc-cohort (local handoffs, 16 in a row).")
    List<String> impls;

    @Option(names = "--warmup", defaultValue = "2s", paramLabel = "DURATION", description = "Warm-up per run. Default: ${DEFAULT-VALUE}.")
    Duration warmup;

    @Option(names = "--x4-warmup", defaultValue = "20s", paramLabel = "DURATION", description = "Warm-up of each x4 run, longer than "
            + "--warmup: its four worker JVMs start fresh each round and compile at once, on the same cores as the server (on 2 cores "
            + "a lock library's handoff path needs about 30 s to reach its steady speed). Default: ${DEFAULT-VALUE}.")
    Duration x4Warmup;

    @Option(names = "--duration", defaultValue = "5s", paramLabel = "DURATION", description = "Measured time per run. Default: ${DEFAULT-VALUE}.")
    Duration duration;

    @Option(names = "--rounds", defaultValue = "3", description = "Rounds (the median is reported). Default: ${DEFAULT-VALUE}.")
    int rounds;

    @Option(names = "--out", defaultValue = "target/bench", description = "Directory for results.json and results.svg.")
    Path out;

    @Option(names = "--compare", paramLabel = "FILE", description = "Also print the results next to an earlier run's results.json: "
            + "cycles/s, p50 and p99 now and then, and the ratio, per scenario and implementation.")
    Path compare;

    @Option(names = "--chart", paramLabel = "FILE", description = "Draw the chart of an earlier run's results.json (written next to it, "
            + "as the same name with .svg) instead of running benchmarks.")
    Path chart;

    /** Runs the benchmarks. */
    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** Returns the command line of the benchmarks, with our duration syntax. */
    static CommandLine commandLine() {
        CommandLine commandLine = new CommandLine(new BenchMain());
        commandLine.registerConverter(Duration.class, new DurationConverter());
        return commandLine;
    }

    @Override
    public Integer call() throws Exception {
        if (chart != null) {
            return redraw(chart);
        }
        if (compare != null && !Files.isRegularFile(compare)) {
            System.err.println("--compare: no such file: " + compare);
            return 2;
        }
        readTargets();
        boolean holdScenario = scenarios.stream().anyMatch(s -> s.trim().equalsIgnoreCase("hold10k"));
        boolean crossProcess = scenarios.stream().anyMatch(s -> s.trim().equalsIgnoreCase("x4"));
        List<Scenario> chosen = scenarios.stream().filter(s -> !s.trim().equalsIgnoreCase("hold10k") && !s.trim().equalsIgnoreCase("x4"))
                .map(Scenario::fromId).toList();
        List<String> all = impls == null ? new ArrayList<>(Contenders.REDIS) : new ArrayList<>(impls);
        if (impls == null) {
            all.addAll(Contenders.ZOOKEEPER);
            Optional<String> noEtcd = etcd != null ? Optional.empty() : Deployments.server("etcd").unavailable().get();
            if (noEtcd.isEmpty()) {
                all.addAll(Contenders.ETCD);
            } else {
                System.err.println("distlock-etcd and jetcd-lock are not measured: " + noEtcd.get());
            }
            all.addAll(SqlContenders.IDS);
        }
        List<String> sqlContenders = all.stream().filter(SqlContenders::isSql).toList();
        List<String> contenders = all.stream().filter(id -> !SqlContenders.isSql(id)).toList();
        // the servers the run starts where no --target names one, through the -testing modules' providers
        StartedServer redisServer = redis == null && !contenders.isEmpty() ? Deployments.server("redis").launch() : null;
        String redisUri = redis != null ? redis : redisServer != null ? redisServer.target() : null;
        boolean needsZooKeeper = contenders.stream().anyMatch(id -> Contenders.ZOOKEEPER.contains(id) || KindContenders.ZOOKEEPER.contains(id));
        StartedServer zooKeeperServer = needsZooKeeper && zookeeper == null ? Deployments.server("zookeeper").launch() : null;
        String zooKeeperConnect = zookeeper != null ? zookeeper : zooKeeperServer != null ? hosts(zooKeeperServer.target()) : null;
        boolean needsEtcd = contenders.stream().anyMatch(id -> Contenders.ETCD.contains(id) || KindContenders.ETCD.contains(id));
        StartedServer etcdServer = needsEtcd && etcd == null ? Deployments.server("etcd").launch() : null;
        Contenders.Targets targets = new Contenders.Targets(redisUri, zooKeeperConnect,
                etcd != null ? etcd : etcdServer != null ? httpEndpoints(etcdServer.target()) : null);
        try {
            List<Measurement> medians = new ArrayList<>();
            for (Scenario scenario : chosen) {
                medians.addAll(ScenarioRun.medians(contenders, id -> Contenders.create(id, targets), scenario,
                        this.rounds, warmup, duration, System.err));
            }
            List<Measurement> sqlMedians = new ArrayList<>();
            List<String> roundTrips = new ArrayList<>();
            List<String> databasesMeasured = new ArrayList<>();
            for (String database : sqlContenders.isEmpty() ? List.<String>of() : sqlDatabases()) {
                // one database at a time, started just before its runs and stopped after them
                try (Database started = Database.open(database)) {
                    SqlContenders.Target target = started.target();
                    databasesMeasured.add(target.label());
                    List<String> ids = sqlContenders.stream().map(id -> SqlContenders.resultId(id, target)).toList();
                    for (Scenario scenario : chosen) {
                        sqlMedians.addAll(ScenarioRun.medians(ids, shown -> SqlContenders.create(shown.substring(0, shown.indexOf('/')), target),
                                scenario, this.rounds, warmup, duration, System.err));
                    }
                    for (String id : sqlContenders) {
                        roundTrips.add(roundTrips(id, target));
                    }
                }
            }
            medians.addAll(sqlMedians);
            Report report = new Report(medians.stream().filter(m -> !sqlMedians.contains(m)).toList());
            if (medians.size() > sqlMedians.size()) {
                System.out.println(report.table());
            }
            if (!sqlMedians.isEmpty()) {
                System.out.println(new Report(sqlMedians).table());
                String ratios = sqlRatios(sqlMedians);
                if (!ratios.isEmpty()) {
                    System.out.println(ratios);
                }
                System.out.println("database round trips per uncontended lock+unlock (u1, counted by a proxy, after warm-up):");
                roundTrips.forEach(System.out::println);
                System.out.println();
            }
            List<CrossProcess.Result> x4 = new ArrayList<>();
            if (crossProcess) {
                for (String id : contenders) {
                    List<CrossProcess.Result> rounds = new ArrayList<>();
                    for (int round = 0; round < this.rounds; round++) {
                        System.err.printf(Locale.ROOT, "x4 round %d/%d %-20s ", round + 1, this.rounds, id);
                        CrossProcess.Result r = CrossProcess.run(id, targets, x4Warmup, duration, "x4-" + round);
                        System.err.printf(Locale.ROOT, "%10.0f cycles/s  handoff p50 %6.0f us%n", r.cyclesPerSecond(), r.handoffP50Nanos() / 1e3);
                        rounds.add(r);
                    }
                    rounds.sort(java.util.Comparator.comparingDouble(CrossProcess.Result::cyclesPerSecond));
                    x4.add(rounds.get(rounds.size() / 2));
                }
                System.out.println(CrossProcess.Result.header());
                x4.forEach(r -> System.out.println(r.row()));
                System.out.println();
            }
            List<HoldManyLocks.Result> holds = new ArrayList<>();
            if (holdScenario) {
                for (String id : List.of("distlock-redis", "redisson-rlock")) {
                    if (!contenders.contains(id)) {
                        continue;
                    }
                    System.err.printf(Locale.ROOT, "hold10k %-20s holding %d locks for %s ...%n", id, holdLocks, DurationConverter.format(hold));
                    HoldManyLocks.Holder holder = id.equals("redisson-rlock") ? new RedissonHolder(redisUri) : HoldManyLocks.distlock(redisUri);
                    holds.add(HoldManyLocks.run(id, holder, redisUri, holdLocks, hold, System.err));
                }
                System.out.println(HoldManyLocks.Result.header());
                holds.forEach(h -> System.out.println(h.row()));
            }
            Files.createDirectories(out);
            Map<String, String> environment = new LinkedHashMap<>();
            environment.put("date", Instant.now().toString());
            environment.put("cores", Integer.toString(Runtime.getRuntime().availableProcessors()));
            environment.put("cpu", cpuModel());
            environment.put("jdk", System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
            environment.put("redis", String.valueOf(redisUri));
            environment.put("etcd", targets.etcd() == null ? "null" : etcdServer != null ? etcdServer.version() : "yours: " + targets.etcd());
            environment.put("databases", databasesMeasured.toString());
            environment.put("rounds", Integer.toString(this.rounds));
            environment.put("secondsPerRun", warmup.toMillis() / 1e3 + "+" + duration.toMillis() / 1e3);
            if (crossProcess) {
                environment.put("secondsPerX4Run", x4Warmup.toMillis() / 1e3 + "+" + duration.toMillis() / 1e3);
            }
            String holdJson = holds.stream().map(h -> String.format(Locale.ROOT,
                    "{\"implementation\":\"%s\",\"locks\":%d,\"seconds\":%.1f,\"commandsPerSecond\":%.1f,\"clientCpuPercent\":%.1f,\"bytesPerLock\":%.0f,\"memoryUsage\":%d}",
                    h.implementation(), h.locks(), h.seconds(), h.commandsPerSecond(), h.clientCpuPercent(), h.bytesPerLock(), h.keyMemoryUsage()))
                    .collect(java.util.stream.Collectors.joining(",", "[", "]"));
            Files.writeString(out.resolve("results.json"), new Report(medians).json(environment, holdJson, CrossProcess.json(x4)));
            if (!medians.isEmpty()) {
                Files.writeString(out.resolve("results.svg"), new Report(medians).svg(environment));
            }
            System.err.println("wrote " + out.resolve("results.json") + (medians.isEmpty() ? "" : " and " + out.resolve("results.svg")));
            if (compare != null) {
                String earlier = Files.readString(compare);
                System.out.println("compared with " + compare + ":");
                if (!medians.isEmpty()) {
                    try {
                        System.out.println(new Report(medians).compare(Report.read(earlier)));
                    } catch (IllegalArgumentException e) {
                        System.out.println("(no in-process results in it to compare with)");
                    }
                }
                if (!x4.isEmpty()) {
                    List<CrossProcess.Result> before = CrossProcess.read(earlier);
                    System.out.println(before.isEmpty() ? "(no x4 results in it to compare with)" : CrossProcess.compare(x4, before));
                }
            }
            return 0;
        } finally {
            if (etcdServer != null) {
                etcdServer.close();
            }
            if (zooKeeperServer != null) {
                zooKeeperServer.close();
            }
            if (redisServer != null) {
                redisServer.close();
            }
        }
    }

    /** Draws the chart of a results.json next to it. */
    private static int redraw(Path json) throws java.io.IOException {
        if (!Files.isRegularFile(json)) {
            System.err.println("--chart: no such file: " + json);
            return 2;
        }
        Report.Saved saved;
        try {
            saved = Report.read(Files.readString(json));
        } catch (IllegalArgumentException e) {
            System.err.println("--chart " + json + ": " + e.getMessage());
            return 2;
        }
        String name = json.getFileName().toString();
        Path svg = json.resolveSibling((name.endsWith(".json") ? name.substring(0, name.length() - 5) : name) + ".svg");
        Files.writeString(svg, new Report(saved.results()).svg(saved.environment()));
        System.err.println("wrote " + svg + " (" + saved.results().size() + " results)");
        return 0;
    }

    /** The CPU's model name from /proc/cpuinfo, or the architecture where there is none. */
    private static String cpuModel() {
        try (java.util.stream.Stream<String> lines = Files.lines(Path.of("/proc/cpuinfo"))) {
            return lines.filter(line -> line.startsWith("model name")).map(line -> line.substring(line.indexOf(':') + 1).trim())
                    .findFirst().orElse(System.getProperty("os.arch"));
        } catch (java.io.IOException | java.io.UncheckedIOException e) {
            return System.getProperty("os.arch");
        }
    }

    /**
     * Sorts the {@code --target}s by the backend the registry opens each with: the peers measured beside distlock need a
     * server of the same backend, in the form each takes (a ZooKeeper connect string, etcd endpoints over HTTP).
     */
    private void readTargets() {
        for (String target : targets == null ? List.<String>of() : targets) {
            String backend;
            try {
                backend = LockClients.providerFor(target).id();
            } catch (IllegalArgumentException e) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--target: " + e.getMessage());
            }
            switch (backend) {
                case "redis" -> redis = only(redis, target, target.matches("(?i)rediss?://.*"), "a redis:// or rediss:// URI of one server");
                case "zookeeper" -> zookeeper = only(zookeeper, hosts(target), true, "");
                case "etcd" -> etcd = only(etcd, httpEndpoints(target), true, "");
                case "jdbc" -> jdbcUrls.add(target);
                default -> throw new CommandLine.ParameterException(spec.commandLine(), "--target: the benchmarks measure on redis, zookeeper, "
                        + "etcd and jdbc targets, not " + backend + " ('" + target + "')");
            }
        }
    }

    private @Nullable String only(@Nullable String earlier, String value, boolean rightForm, String form) {
        if (earlier != null) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--target: one server per backend; two given: " + earlier + " and " + value);
        }
        if (!rightForm) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--target: the peers need " + form + ", was " + value);
        }
        return value;
    }

    /** The endpoints of an {@code etcd://} target as jetcd takes them: {@code http://host:port,http://host:port}. */
    static String httpEndpoints(String target) {
        return Arrays.stream(hosts(target).split(",")).map(host -> "http://" + host).collect(Collectors.joining(","));
    }

    /** The hosts of a target: what lies between {@code scheme://} (and any user) and the path or parameters. */
    static String hosts(String target) {
        String rest = target.substring(target.indexOf("://") + 3);
        rest = rest.substring(rest.indexOf('@') + 1);
        int end = rest.length();
        for (char c : new char[] {'/', '?', '#'}) {
            int at = rest.indexOf(c);
            if (at >= 0) {
                end = Math.min(end, at);
            }
        }
        return rest.substring(0, end);
    }

    /** The databases to measure on: the given JDBC URLs, else the names of the databases to start. */
    private List<String> sqlDatabases() {
        if (!jdbcUrls.isEmpty()) {
            return jdbcUrls;
        }
        for (String database : databases) {
            if (!List.of("postgres", "mariadb").contains(database.trim().toLowerCase(Locale.ROOT))) {
                throw new CommandLine.ParameterException(spec.commandLine(), "unknown database '" + database + "'; choose from postgres, mariadb");
            }
        }
        return databases;
    }

    /** A database for one phase of the run: one started here, or one the user named by JDBC URL (not stopped). */
    private record Database(SqlContenders.Target target, AutoCloseable server) implements AutoCloseable {
        static Database open(String database) {
            switch (database.trim().toLowerCase(Locale.ROOT)) {
                case "postgres", "mariadb" -> {
                    ServerType type = Deployments.server(database.trim().toLowerCase(Locale.ROOT));
                    System.err.println("starting " + type.description() + " ...");
                    StartedServer server = type.launch();
                    return new Database(new SqlContenders.Target(type.id(), server.target()), server);
                }
                default -> {
                    return new Database(new SqlContenders.Target(SqlContenders.Target.labelOf(database), database), () -> { });
                }
            }
        }

        @Override
        public void close() throws Exception {
            server.close();
        }
    }

    /** Counts the database round trips of uncontended cycles of {@code id} through a counting proxy. */
    private static String roundTrips(String id, SqlContenders.Target target) throws Exception {
        int warmup = 200;
        int measured = 1000;
        try (TcpProxy proxy = TcpProxy.to(target.port());
                Contender contender = SqlContenders.create(id, target.viaPort(proxy.port()))) {
            String name = "round-trips";
            for (int i = 0; i < warmup; i++) {
                contender.cycle(name);
            }
            long before = proxy.roundTrips();
            for (int i = 0; i < measured; i++) {
                contender.cycle(name);
            }
            double perCycle = (proxy.roundTrips() - before) / (double) measured;
            return String.format(Locale.ROOT, "  %-24s %5.2f", SqlContenders.resultId(id, target), perCycle);
        }
    }

    /** Returns, per scenario and database, distlock-jdbc's throughput over the faster of ShedLock and Spring Integration. */
    private static String sqlRatios(List<Measurement> sqlMedians) {
        StringBuilder out = new StringBuilder();
        for (Measurement m : sqlMedians) {
            if (!m.contender().startsWith("distlock-jdbc/")) {
                continue;
            }
            String database = m.contender().substring(m.contender().indexOf('/') + 1);
            sqlMedians.stream()
                    .filter(o -> o.scenario() == m.scenario() && !o.contender().startsWith("distlock-jdbc/") && o.contender().endsWith("/" + database))
                    .max(java.util.Comparator.comparingDouble(Measurement::cyclesPerSecond))
                    .ifPresent(best -> out.append(String.format(Locale.ROOT, "  %-4s %-9s %6.2fx (%s %.0f/s)%n", m.scenario().id(), database,
                            m.cyclesPerSecond() / best.cyclesPerSecond(), best.contender(), best.cyclesPerSecond())));
        }
        return out.isEmpty() ? "" : "distlock-jdbc against the faster of shedlock-jdbc and spring-jdbc:\n" + out;
    }
}
