package io.distlock.cli.check;

import io.distlock.checker.CheckReport;
import io.distlock.checker.Checker;
import io.distlock.checker.Event;
import io.distlock.checker.FaultKind;
import io.distlock.checker.History;
import io.distlock.checker.HistoryFile;
import io.distlock.checker.Invariant;
import io.distlock.checker.Operation;
import io.distlock.checker.TimelineReport;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code distlock check}: records a history of lock operations by several client processes while
 * faults are injected, and checks it for the safety and liveness properties the lock claims.
 */
@Command(name = "check", mixinStandardHelpOptions = true,
        description = {"Check a lock under faults: several client processes lock, read-modify-write a register and write to a "
                + "fenced store, while a nemesis pauses and kills clients, restarts and fails over servers and cuts connections. "
                + "The recorded history is checked for token order, fenced writes, lost updates, overlapping holders and liveness.",
                "",
                "Exit code: 0 when every invariant the chosen lock claims holds, 1 if one is violated, 2 for bad options."})
public final class CheckCommand implements Callable<Integer> {
    private static final Pattern DURATION = Pattern.compile("(\\d+)(ms|s|m)");

    @Spec
    CommandSpec spec;

    @Option(names = "--backend", defaultValue = "redis", paramLabel = "NAME",
            description = "Deployment: redis (one server), sentinel (master, 2 replicas, 3 Sentinels), cluster (3 masters, "
                    + "3 replicas), redlock (5 masters) or zookeeper (3-member ensemble). Default: ${DEFAULT-VALUE}.")
    String backend;

    @Option(names = "--min-replicas", defaultValue = "0",
            description = "With --backend sentinel: replicas that must acknowledge every lock write (WAIT). Default: ${DEFAULT-VALUE}.")
    int minReplicas;

    @Option(names = "--lock", defaultValue = "distlock", paramLabel = "NAME",
            description = "Lock to check: distlock, naive-set-nx (SET NX PX + Lua release) or naive-getset (SETNX/GETSET). Default: ${DEFAULT-VALUE}.")
    String lock;

    @Option(names = "--time", defaultValue = "60s", paramLabel = "DURATION", description = "How long to run (e.g. 30s, 2m). Default: ${DEFAULT-VALUE}.")
    String time;

    @Option(names = "--processes", defaultValue = "5", description = "Client processes. Default: ${DEFAULT-VALUE}.")
    int processes;

    @Option(names = "--lease-ms", defaultValue = "1000", description = "Lease time of the lock. Default: ${DEFAULT-VALUE}.")
    long leaseMs;

    @Option(names = "--faults", split = ",", paramLabel = "KIND",
            description = "Faults, in rotation. redis: pause, kill, partition, restart, promote; sentinel: pause, kill, failover; "
                    + "cluster: pause, kill, shard-failover; redlock: pause, kill, node-restart, nodes-down; zookeeper: pause, kill, "
                    + "expire, member; or none. Default: all of the backend's.")
    List<String> faults;

    @Option(names = "--liveness-bound", defaultValue = "5s", paramLabel = "DURATION",
            description = "After a fault heals, some process must acquire within the lease time plus this. Default: ${DEFAULT-VALUE}.")
    String livenessBound;

    @Option(names = "--seed", description = "Seed of the fault targets and the clients' work times. Default: random (printed).")
    Long seed;

    @Option(names = "--out", defaultValue = "distlock-check", paramLabel = "DIR",
            description = "Directory for report.html and history.txt. Default: ${DEFAULT-VALUE}.")
    Path out;

    @Option(names = "--replay", paramLabel = "FILE",
            description = "Check a history.txt recorded by an earlier run instead of running (with --lock for the claims to check).")
    Path replay;

    @Override
    public Integer call() throws Exception {
        CheckedLock target = parseLock();
        Duration bound = parseDuration("--liveness-bound", livenessBound);
        History history;
        List<String> workerOutput = List.of();
        String title;
        Long runSeed = null;
        List<String> faultIds = List.of();
        if (replay != null) {
            try {
                history = HistoryFile.read(replay);
            } catch (java.io.IOException | IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), "--replay: " + e.getMessage());
            }
            title = "distlock check: " + target.id() + ", replay of " + replay;
        } else {
            Duration duration = parseDuration("--time", time);
            require(processes >= 2 && processes <= 16, "--processes must be between 2 and 16, was " + processes);
            require(leaseMs >= 200 && leaseMs <= 30_000, "--lease-ms must be between 200 and 30000, was " + leaseMs);
            require(duration.compareTo(Duration.ofSeconds(5)) >= 0 && duration.compareTo(Duration.ofHours(24)) <= 0,
                    "--time must be between 5s and 24h, was " + time);
            require(minReplicas >= 0 && minReplicas <= 2, "--min-replicas must be between 0 and 2, was " + minReplicas);
            require(minReplicas == 0 || backend.equals("sentinel"), "--min-replicas needs --backend sentinel");
            Deployment deployment = DeploymentKind.fromId(backend).create(new DeploymentSettings(processes, Duration.ofMillis(leaseMs), minReplicas));
            List<FaultKind> faultKinds = parseFaults(deployment);
            faultIds = faultKinds.stream().map(FaultKind::id).toList();
            runSeed = seed != null ? seed : ThreadLocalRandom.current().nextLong(1, 1_000_000);
            PrintStream progress = System.err;
            progress.printf(Locale.ROOT, "checking %s on %s for %s with faults %s, seed %d%n", target.id(), backend, time,
                    faultIds.isEmpty() ? "none" : String.join(",", faultIds), runSeed);
            try (CheckRun run = new CheckRun(target, deployment, processes, Duration.ofMillis(leaseMs), runSeed, progress)) {
                history = run.run(duration, faultKinds);
                workerOutput = run.workerOutput();
            }
            title = "distlock check: " + target.id() + " on " + backend + (minReplicas > 0 ? " (minReplicas " + minReplicas + ")" : "") + ", " + time + ", faults "
                    + (faultIds.isEmpty() ? "none" : String.join(",", faultIds)) + ", seed " + runSeed;
        }
        CheckReport report = new Checker(history, target.claims(), bound.toNanos()).check();
        Files.createDirectories(out);
        Path html = out.resolve("report.html");
        Files.writeString(html, TimelineReport.html(title, history, report), StandardCharsets.UTF_8);
        Path historyFile = replay != null ? replay : out.resolve("history.txt");
        if (replay == null) {
            HistoryFile.write(history, historyFile);
        }

        System.out.println();
        System.out.println(title);
        System.out.print(report.toText());
        System.out.println();
        System.out.println(verdict(target, report));
        if (!workerOutput.isEmpty()) {
            System.out.println("client processes also printed " + workerOutput.size() + " other lines; the first: " + workerOutput.get(0));
        }
        System.out.println("report: " + html.toAbsolutePath() + "  history: " + historyFile.toAbsolutePath());
        if (runSeed != null) {
            System.out.println("repeat: ./distlock check --backend " + backend + (minReplicas > 0 ? " --min-replicas " + minReplicas : "")
                    + " --lock " + target.id() + " --time " + time
                    + " --seed " + runSeed + (faults != null ? " --faults " + String.join(",", faultIds.isEmpty() ? List.of("none") : faultIds) : ""));
        }
        long acquisitions = history.events().stream().filter(e -> e.is(Event.Type.OK, Operation.ACQUIRE)).count();
        if (acquisitions == 0) {
            System.out.println("no acquisition completed: the run checked nothing");
            return 1;
        }
        return report.passed() ? 0 : 1;
    }

    private static String verdict(CheckedLock target, CheckReport report) {
        if (!report.passed()) {
            return "VIOLATION: " + target.id() + " broke invariants it claims (counterexamples above).";
        }
        if (target == CheckedLock.DISTLOCK) {
            boolean overlaps = !report.result(Invariant.OVERLAP).holds();
            return "OK: every claimed invariant holds." + (overlaps
                    ? " The overlaps above are what a lease lock cannot prevent: a holder paused past its lease (or whose "
                    + "lock vanished with a restart or failover) still believes it holds the lock when it resumes. Its "
                    + "unfenced writes can then be lost; its fenced writes are rejected, which is why the fenced store "
                    + "stays consistent."
                    : "");
        }
        return "OK: every claimed invariant holds (a run without violations does not prove the lock safe).";
    }

    private CheckedLock parseLock() {
        DeploymentKind kind;
        try {
            kind = DeploymentKind.fromId(backend);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        try {
            CheckedLock checked = CheckedLock.fromId(lock);
            Deployment probe = kind.create(new DeploymentSettings(processes, Duration.ofMillis(Math.max(1, leaseMs)), minReplicas));
            require(probe.supports(checked), "--lock " + lock + " runs on Redis only");
            return checked;
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--lock: " + e.getMessage());
        }
    }

    private List<FaultKind> parseFaults(Deployment deployment) {
        List<FaultKind> known = deployment.faultKinds();
        if (faults == null || faults.isEmpty()) {
            return known;
        }
        if (faults.size() == 1 && faults.get(0).equals("none")) {
            return List.of();
        }
        List<String> knownIds = known.stream().map(FaultKind::id).toList();
        LinkedHashSet<FaultKind> chosen = new LinkedHashSet<>();
        for (String fault : faults) {
            require(knownIds.contains(fault), "--faults: '" + fault + "' is not a " + backend + " fault; choose from "
                    + String.join(", ", knownIds) + " or none");
            chosen.add(FaultKind.fromId(fault));
        }
        return List.copyOf(chosen);
    }

    private Duration parseDuration(String option, String text) {
        Matcher m = DURATION.matcher(text == null ? "" : text.trim());
        require(m.matches(), option + " must look like 500ms, 30s or 2m, was '" + text + "'");
        long amount = Long.parseLong(m.group(1));
        return switch (m.group(2)) {
            case "ms" -> Duration.ofMillis(amount);
            case "s" -> Duration.ofSeconds(amount);
            default -> Duration.ofMinutes(amount);
        };
    }

    private void require(boolean condition, String message) {
        if (!condition) {
            throw new ParameterException(spec.commandLine(), message);
        }
    }
}
