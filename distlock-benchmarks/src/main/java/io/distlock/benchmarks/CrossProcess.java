package io.distlock.benchmarks;

import io.distlock.cli.bench.Contender;
import io.distlock.cli.bench.Report;
import io.distlock.servers.ChildJvm;
import io.distlock.servers.ParentJvm;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Scenario x4: 4 processes x 4 threads on one lock name. Each worker JVM records, per cycle, when it
 * acquired and when it released (System.nanoTime is CLOCK_MONOTONIC on Linux, one clock for all
 * processes). Merged, the intervals give throughput and the handoff latency: from a release in one
 * process to the next acquisition in another.
 */
final class CrossProcess {
    static final int PROCESSES = 4;
    static final int THREADS = 4;

    private CrossProcess() {}

    record Result(String implementation, double cyclesPerSecond, long handoffP50Nanos, long handoffP99Nanos, long handoffs) {
        String row() {
            return String.format(Locale.ROOT, "%-8s %-20s %12.0f %16.0f %16.0f %10d", "x4", implementation, cyclesPerSecond,
                    handoffP50Nanos / 1e3, handoffP99Nanos / 1e3, handoffs);
        }

        static String header() {
            return String.format(Locale.ROOT, "%-8s %-20s %12s %16s %16s %10s", "scenario", "implementation", "cycles/s",
                    "handoff p50 us", "handoff p99 us", "handoffs");
        }

        String json() {
            return String.format(Locale.ROOT, "{\"implementation\":\"%s\",\"cyclesPerSecond\":%.1f,\"handoffP50Micros\":%.1f,"
                    + "\"handoffP99Micros\":%.1f,\"handoffs\":%d}", implementation, cyclesPerSecond, handoffP50Nanos / 1e3,
                    handoffP99Nanos / 1e3, handoffs);
        }
    }

    private static final java.util.regex.Pattern SAVED = java.util.regex.Pattern.compile("\\{\"implementation\":\"([^\"]+)\","
            + "\"cyclesPerSecond\":([\\d.]+),\"handoffP50Micros\":([\\d.]+),\"handoffP99Micros\":([\\d.]+),\"handoffs\":(\\d+)}");

    /** Returns the results as the JSON array of a results.json's "x4" entry. */
    static String json(List<Result> results) {
        return results.stream().map(Result::json).collect(java.util.stream.Collectors.joining(",\n  ", "[\n  ", "]"));
    }

    /** Reads the x4 results of a results.json (none if the run had no x4, or predates x4 in the JSON). */
    static List<Result> read(String json) {
        int at = json.indexOf("\"x4\":[");
        List<Result> results = new ArrayList<>();
        if (at < 0) {
            return results;
        }
        java.util.regex.Matcher m = SAVED.matcher(json.substring(at, json.indexOf(']', at) + 1));
        while (m.find()) {
            results.add(new Result(m.group(1), Double.parseDouble(m.group(2)), Math.round(Double.parseDouble(m.group(3)) * 1e3),
                    Math.round(Double.parseDouble(m.group(4)) * 1e3), Long.parseLong(m.group(5))));
        }
        return results;
    }

    /**
     * Returns the x4 results next to an earlier run's: cycles/s and handoff p50/p99 now and then, and the ratio now/then
     * (above 1.00x is faster for cycles/s, slower for the handoff latencies).
     */
    static String compare(List<Result> now, List<Result> earlier) {
        StringBuilder out = new StringBuilder(String.format(Locale.ROOT, "%-8s %-24s %11s %11s %8s %9s %9s %8s %9s %9s %8s%n",
                "scenario", "implementation", "cycles/s", "before", "ratio", "hand p50", "before", "ratio", "hand p99", "before", "ratio"));
        List<Result> unmatched = new ArrayList<>(earlier);
        for (Result r : now) {
            Optional<Result> then = unmatched.stream().filter(e -> e.implementation().equals(r.implementation())).findFirst();
            if (then.isEmpty()) {
                out.append(String.format(Locale.ROOT, "%-8s %-24s %11.0f %11s%n", "x4", r.implementation(), r.cyclesPerSecond(), "(new)"));
                continue;
            }
            Result t = then.get();
            unmatched.remove(t);
            out.append(String.format(Locale.ROOT, "%-8s %-24s %11.0f %11.0f %8s %9.0f %9.0f %8s %9.0f %9.0f %8s%n", "x4", r.implementation(),
                    r.cyclesPerSecond(), t.cyclesPerSecond(), Report.times(r.cyclesPerSecond(), t.cyclesPerSecond()), r.handoffP50Nanos() / 1e3,
                    t.handoffP50Nanos() / 1e3, Report.times(r.handoffP50Nanos(), t.handoffP50Nanos()), r.handoffP99Nanos() / 1e3,
                    t.handoffP99Nanos() / 1e3, Report.times(r.handoffP99Nanos(), t.handoffP99Nanos())));
        }
        for (Result t : unmatched) {
            out.append(String.format(Locale.ROOT, "%-8s %-24s %11s %11.0f%n", "x4", t.implementation(), "(not run)", t.cyclesPerSecond()));
        }
        return out.toString();
    }

    static Result run(String id, Contenders.Targets targets, Duration warmup, Duration duration, String lockName)
            throws Exception {
        List<ChildJvm> workers = new ArrayList<>();
        List<Path> outputs = new ArrayList<>();
        try {
            for (int p = 0; p < PROCESSES; p++) {
                Path out = Files.createTempFile("distlock-x4-", ".bin");
                outputs.add(out);
                // default JVM flags: the workers are measured, so they get the full JIT
                workers.add(ChildJvm.of(CrossProcess.class).name("x4-" + id + "-" + p)
                        .args(workerArgs(id, targets, lockName, out)).start());
            }
            ChildJvm.awaitAllReady(workers, Duration.ofSeconds(120));
            // System.nanoTime is one clock for all processes here, so the window is given in absolute nanos
            long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200);
            long measureFrom = start + warmup.toNanos();
            long measureTo = measureFrom + duration.toNanos();
            for (ChildJvm worker : workers) {
                worker.go(start + " " + measureFrom + " " + measureTo);
            }
            for (ChildJvm worker : workers) {
                try {
                    worker.awaitLine("DONE"::equals, warmup.plus(duration).plusSeconds(120));
                } catch (IllegalStateException e) {
                    throw new IllegalStateException("x4 worker for " + id + " failed", e);
                }
                if (!worker.awaitExit(Duration.ofSeconds(120)) || worker.exitValue() != 0) {
                    throw new IllegalStateException("x4 worker for " + id + " failed:\n" + String.join("\n", worker.output()));
                }
            }
            List<long[]> intervals = new ArrayList<>();
            for (int p = 0; p < PROCESSES; p++) {
                try (DataInputStream in = new DataInputStream(Files.newInputStream(outputs.get(p)))) {
                    int count = in.readInt();
                    for (int i = 0; i < count; i++) {
                        intervals.add(new long[] {in.readLong(), in.readLong(), p});
                    }
                }
            }
            intervals.sort(Comparator.comparingLong(a -> a[0]));
            long[] handoffs = new long[intervals.size()];
            int n = 0;
            for (int i = 1; i < intervals.size(); i++) {
                long[] previous = intervals.get(i - 1);
                long[] next = intervals.get(i);
                if (previous[2] != next[2] && next[0] >= previous[1]) {
                    handoffs[n++] = next[0] - previous[1];
                }
            }
            long[] sorted = Arrays.copyOf(handoffs, n);
            Arrays.sort(sorted);
            long p50 = n == 0 ? 0 : sorted[Math.max(0, (int) Math.ceil(0.5 * n) - 1)];
            long p99 = n == 0 ? 0 : sorted[Math.max(0, (int) Math.ceil(0.99 * n) - 1)];
            return new Result(id, intervals.size() / (duration.toNanos() / 1e9), p50, p99, n);
        } finally {
            workers.forEach(ChildJvm::close);
            for (Path out : outputs) {
                Files.deleteIfExists(out);
            }
        }
    }

    private static List<String> workerArgs(String id, Contenders.Targets targets, String lockName, Path out) {
        List<String> args = new ArrayList<>(List.of(id));
        args.addAll(targets.args());
        args.addAll(List.of(lockName, out.toString()));
        return args;
    }

    /** Worker JVM: id, redis, zookeeper, etcd, lock name, output file; READY, then "GO start measureFrom measureTo" on stdin. */
    public static void main(String[] args) throws Exception {
        AtomicBoolean failed = new AtomicBoolean();
        List<long[]> all = new ArrayList<>();
        try (Contender contender = Contenders.create(args[0], Contenders.Targets.from(args, 1))) {
            Optional<String> go = ParentJvm.readyThenAwaitGo();
            if (go.isEmpty()) {
                return; // the coordinator gave up
            }
            String[] window = go.get().split(" ");
            long start = Long.parseLong(window[0]);
            long warmupEnd = Long.parseLong(window[1]);
            long end = Long.parseLong(window[2]);
            while (System.nanoTime() < start) {
                Thread.onSpinWait();
            }
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                Thread thread = new Thread(() -> {
                    List<long[]> mine = new ArrayList<>();
                    try {
                        while (System.nanoTime() < end) {
                            long[] interval = contender.timedCycle(args[4]);
                            if (interval[0] > warmupEnd && interval[1] < end) {
                                mine.add(interval);
                            }
                        }
                    } catch (Exception e) {
                        e.printStackTrace();
                        failed.set(true);
                    }
                    synchronized (all) {
                        all.addAll(mine);
                    }
                });
                thread.start();
                threads.add(thread);
            }
            for (Thread thread : threads) {
                thread.join();
            }
        }
        try (DataOutputStream out = new DataOutputStream(Files.newOutputStream(Path.of(args[5])))) {
            out.writeInt(all.size());
            for (long[] interval : all) {
                out.writeLong(interval[0]);
                out.writeLong(interval[1]);
            }
        }
        System.out.println("DONE");
        System.exit(failed.get() ? 1 : 0);
    }
}
