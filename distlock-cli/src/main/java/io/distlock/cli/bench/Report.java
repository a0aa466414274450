package io.distlock.cli.bench;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/** Renders medians as a text table (with ratios), JSON and an SVG chart, and reads the JSON back. */
public final class Report {
    private static final Pattern RESULT = Pattern.compile("\\{\"scenario\":\"(\\w+)\",\"implementation\":\"([^\"]+)\",\"cyclesPerSecond\":([\\d.]+),"
            + "\"p50Micros\":([\\d.]+),\"p99Micros\":([\\d.]+),\"maxMillis\":([\\d.]+),\"cycles\":(\\d+)}");
    private static final Pattern ENVIRONMENT = Pattern.compile("\"environment\":\\{([^}]*)}");
    private static final Pattern ENTRY = Pattern.compile("\"([^\"]+)\":\"([^\"]*)\"");

    private final List<Measurement> results;

    /**
     * What a {@link #json} file holds.
     *
     * @param results the median measurements
     * @param environment where and when they were measured (date, cores, cpu, jdk, servers, rounds)
     */
    public record Saved(List<Measurement> results, Map<String, String> environment) {}

    /** Creates a report of these (median) measurements. */
    public Report(List<Measurement> results) {
        this.results = results;
    }

    /** Returns the results as a text table with ratios to Redisson and to the raw limit, where measured. */
    public String table() {
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "%-8s %-20s %12s %10s %10s %10s %12s %10s%n",
                "scenario", "implementation", "cycles/s", "p50 us", "p99 us", "max ms", "vs redisson", "vs raw"));
        for (Map.Entry<Scenario, List<Measurement>> byScenario : byScenario().entrySet()) {
            @Nullable Measurement redisson = find(byScenario.getValue(), "redisson-rlock");
            @Nullable Measurement raw = find(byScenario.getValue(), "raw-eval");
            for (Measurement m : byScenario.getValue()) {
                out.append(String.format(Locale.ROOT, "%-8s %-20s %12.0f %10.0f %10.0f %10.1f %12s %10s%n",
                        byScenario.getKey().id(), m.contender(), m.cyclesPerSecond(), m.p50Nanos() / 1e3, m.p99Nanos() / 1e3,
                        m.maxNanos() / 1e6, ratio(m, redisson), ratio(m, raw)));
            }
        }
        return out.toString();
    }

    /**
     * Returns the results next to an earlier run's ({@code --compare}): per scenario and implementation measured in both,
     * cycles/s, p50 and p99 now and then, and the ratio now/then (above 1.00x is faster for cycles/s, slower for the
     * latencies); rows only one of the runs has are listed as such. Compare runs of one machine: the ratios of one run
     * to the raw limit carry across machines better than absolute numbers.
     */
    public String compare(Saved earlier) {
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "%-8s %-24s %11s %11s %8s %9s %9s %8s %9s %9s %8s%n", "scenario", "implementation",
                "cycles/s", "before", "ratio", "p50 us", "before", "ratio", "p99 us", "before", "ratio"));
        List<Measurement> unmatched = new java.util.ArrayList<>(earlier.results());
        for (Measurement now : results) {
            Measurement then = unmatched.stream().filter(m -> m.scenario() == now.scenario() && m.contender().equals(now.contender()))
                    .findFirst().orElse(null);
            if (then == null) {
                out.append(String.format(Locale.ROOT, "%-8s %-24s %11.0f %11s%n", now.scenario().id(), now.contender(), now.cyclesPerSecond(),
                        "(new)"));
                continue;
            }
            unmatched.remove(then);
            out.append(String.format(Locale.ROOT, "%-8s %-24s %11.0f %11.0f %8s %9.0f %9.0f %8s %9.0f %9.0f %8s%n", now.scenario().id(),
                    now.contender(), now.cyclesPerSecond(), then.cyclesPerSecond(), times(now.cyclesPerSecond(), then.cyclesPerSecond()),
                    now.p50Nanos() / 1e3, then.p50Nanos() / 1e3, times(now.p50Nanos(), then.p50Nanos()),
                    now.p99Nanos() / 1e3, then.p99Nanos() / 1e3, times(now.p99Nanos(), then.p99Nanos())));
        }
        for (Measurement then : unmatched) {
            out.append(String.format(Locale.ROOT, "%-8s %-24s %11s %11.0f%n", then.scenario().id(), then.contender(), "(not run)",
                    then.cyclesPerSecond()));
        }
        String when = earlier.environment().getOrDefault("date", "");
        if (!when.isEmpty()) {
            out.append("before: ").append(when).append(earlier.environment().containsKey("cpu") ? ", " + earlier.environment().get("cpu") : "")
                    .append(String.format(Locale.ROOT, "%n"));
        }
        return out.toString();
    }

    /** Returns {@code now / then} as a ratio such as {@code 1.25x}, or {@code -} when there is nothing to divide by. */
    public static String times(double now, double then) {
        return then == 0 ? "-" : String.format(Locale.ROOT, "%.2fx", now / then);
    }

    private static String ratio(Measurement m, @Nullable Measurement base) {
        return base == null ? "-" : String.format(Locale.ROOT, "%.2fx", m.cyclesPerSecond() / base.cyclesPerSecond());
    }

    private static @Nullable Measurement find(List<Measurement> list, String contender) {
        return list.stream().filter(m -> m.contender().equals(contender)).findFirst().orElse(null);
    }

    private Map<Scenario, List<Measurement>> byScenario() {
        return results.stream().collect(Collectors.groupingBy(Measurement::scenario, LinkedHashMap::new, Collectors.toList()));
    }

    /**
     * Reads a file written by {@link #json}: its results (of the scenarios this version knows) and environment.
     *
     * @throws IllegalArgumentException if the text holds no results in that format
     */
    public static Saved read(String json) {
        List<Measurement> results = new java.util.ArrayList<>();
        Matcher m = RESULT.matcher(json);
        while (m.find()) {
            double cyclesPerSecond = Double.parseDouble(m.group(3));
            long cycles = Long.parseLong(m.group(7));
            results.add(new Measurement(m.group(2), Scenario.fromId(m.group(1)), cycles, cyclesPerSecond == 0 ? 0 : cycles / cyclesPerSecond,
                    Math.round(Double.parseDouble(m.group(4)) * 1e3), Math.round(Double.parseDouble(m.group(5)) * 1e3),
                    Math.round(Double.parseDouble(m.group(6)) * 1e6)));
        }
        if (results.isEmpty()) {
            throw new IllegalArgumentException("no benchmark results in it (expected the results.json a benchmark run writes)");
        }
        Map<String, String> environment = new LinkedHashMap<>();
        Matcher env = ENVIRONMENT.matcher(json);
        if (env.find()) {
            Matcher entry = ENTRY.matcher(env.group(1));
            while (entry.find()) {
                environment.put(entry.group(1), entry.group(2));
            }
        }
        return new Saved(List.copyOf(results), environment);
    }

    /** Returns the results as JSON. */
    public String json(Map<String, String> environment, String hold10kJsonArray) {
        return json(environment, hold10kJsonArray, "[]");
    }

    /**
     * Returns the results as JSON, with the hold10k results and the cross-process (x4) results, each a JSON array
     * written by the benchmark that measured them.
     */
    public String json(Map<String, String> environment, String hold10kJsonArray, String x4JsonArray) {
        String env = environment.entrySet().stream()
                .map(e -> "\"" + e.getKey() + "\":\"" + e.getValue().replace("\"", "'") + "\"")
                .collect(Collectors.joining(","));
        String rows = results.stream().map(m -> String.format(Locale.ROOT,
                "{\"scenario\":\"%s\",\"implementation\":\"%s\",\"cyclesPerSecond\":%.1f,\"p50Micros\":%.1f,\"p99Micros\":%.1f,\"maxMillis\":%.2f,\"cycles\":%d}",
                m.scenario().id(), m.contender(), m.cyclesPerSecond(), m.p50Nanos() / 1e3, m.p99Nanos() / 1e3, m.maxNanos() / 1e6, m.cycles()))
                .collect(Collectors.joining(",\n  "));
        return "{\"environment\":{" + env + "},\n \"results\":[\n  " + rows + "],\n \"hold10k\":" + hold10kJsonArray
                + ",\n \"x4\":" + x4JsonArray + "}\n";
    }

    /**
     * Returns the results as an SVG chart: a panel per scenario and backend with throughput and latency
     * (p50, p99) on axes of their own, {@code raw-eval} as a baseline; the title names the machine and date.
     *
     * @param environment the run's environment (cores, cpu, jdk, date), as written into the JSON
     */
    public String svg(Map<String, String> environment) {
        return BenchChart.svg(results, "lock+unlock cycles per second and latency (median of rounds)", BenchChart.machine(environment));
    }
}
