package io.distlock.cli.bench;

import io.distlock.cli.options.DurationConverter;
import io.distlock.cli.options.RedisOption;
import io.distlock.redis.RedisLockClient;
import io.distlock.redis.testing.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code distlock bench}: measures distlock against the raw Redis limit on your own Redis, with the
 * scenario names of the side-by-side benchmarks in {@code distlock-benchmarks} (which add Redisson
 * and Curator and are not shipped).
 */
@Command(name = "bench", mixinStandardHelpOptions = true,
        description = {"Measure distlock's Redis lock on your Redis, next to the raw limit.",
                "",
                "Reports lock+unlock cycles/s and latency, and the same for two trivial EVALs per cycle (the raw limit). Scenarios: u1 (1 thread, 1 name), u16 (16 threads, 16 names), "
                + "c16 (16 threads, 1 name), hold10k (hold many locks with the watchdog: script calls/s, CPU, memory), "
                + "names300k (lock and unlock 300,000 distinct names: the client's heap growth afterwards).",
                "",
                "With --redis, only keys under distlock: and bench names are written; the numbers are deltas, so measure an "
                + "otherwise idle Redis. Progress goes to stderr, the table to stdout.",
                "",
                "Exit code: 0 when every run completed, 2 for bad options or an unreachable --redis, 4 if a run failed."})
public final class BenchCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    RedisOption redis = new RedisOption();

    @Option(names = "--scenarios", split = ",", defaultValue = "u1,u16,c16", paramLabel = "NAME",
            description = "Scenarios to run: u1, u16, c16, hold10k, names300k. Default: ${DEFAULT-VALUE}; add hold10k for the watchdog cost, "
                    + "names300k for per-name memory.")
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

    @Override
    public Integer call() throws Exception {
        if (duration.isZero() || hold.isZero() || rounds < 1 || holdLocks < 1) {
            throw new ParameterException(spec.commandLine(), "--duration and --hold must be longer than 0s, --rounds and --hold-locks at least 1");
        }
        boolean holdScenario = false;
        boolean namesScenario = false;
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
            try {
                chosen.add(Scenario.fromId(name));
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), "--scenarios: " + e.getMessage() + ", hold10k, names300k");
            }
        }
        String given = redis.reachable(spec).orElse(null);
        RedisServer embedded = given == null ? RedisServer.launch() : null;
        String uri = embedded == null ? Objects.requireNonNull(given) : embedded.uri();
        try {
            List<Measurement> medians = new ArrayList<>();
            for (Scenario scenario : chosen) {
                medians.addAll(ScenarioRun.medians(List.of("raw-eval", "distlock-redis"),
                        id -> id.equals("raw-eval") ? BasicContenders.rawEval(uri) : BasicContenders.distlock(id, RedisLockClient.create(uri)),
                        scenario, rounds, warmup, duration, System.err));
            }
            if (!medians.isEmpty()) {
                System.out.println(new Report(medians).table());
            }
            if (holdScenario) {
                System.err.printf(Locale.ROOT, "hold10k: holding %d locks for %s ...%n", holdLocks, DurationConverter.format(hold));
                HoldManyLocks.Result result = HoldManyLocks.run("distlock-redis", HoldManyLocks.distlock(uri), uri, holdLocks, hold, System.err);
                System.out.println(HoldManyLocks.Result.header());
                System.out.println(result.row());
            }
            if (namesScenario) {
                System.err.println("names300k: locking and unlocking 300,000 distinct names ...");
                ManyNames.Result result = ManyNames.run(uri, 300_000, System.err);
                System.out.println(ManyNames.Result.header());
                System.out.println(result.row());
            }
            return 0;
        } finally {
            if (embedded != null) {
                embedded.close();
            }
        }
    }
}
