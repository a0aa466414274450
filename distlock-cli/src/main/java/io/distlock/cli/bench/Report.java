package io.distlock.cli.bench;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/** Renders medians as a text table (with ratios), JSON and an SVG bar chart. */
public final class Report {
    private final List<Measurement> results;

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
            Measurement redisson = find(byScenario.getValue(), "redisson-rlock");
            Measurement raw = find(byScenario.getValue(), "raw-eval");
            for (Measurement m : byScenario.getValue()) {
                out.append(String.format(Locale.ROOT, "%-8s %-20s %12.0f %10.0f %10.0f %10.1f %12s %10s%n",
                        byScenario.getKey().id(), m.contender(), m.cyclesPerSecond(), m.p50Nanos() / 1e3, m.p99Nanos() / 1e3,
                        m.maxNanos() / 1e6, ratio(m, redisson), ratio(m, raw)));
            }
        }
        return out.toString();
    }

    private static String ratio(Measurement m, Measurement base) {
        return base == null ? "-" : String.format(Locale.ROOT, "%.2fx", m.cyclesPerSecond() / base.cyclesPerSecond());
    }

    private static Measurement find(List<Measurement> list, String contender) {
        return list.stream().filter(m -> m.contender().equals(contender)).findFirst().orElse(null);
    }

    private Map<Scenario, List<Measurement>> byScenario() {
        return results.stream().collect(Collectors.groupingBy(Measurement::scenario, LinkedHashMap::new, Collectors.toList()));
    }

    /** Returns the results as JSON. */
    public String json(Map<String, String> environment, String hold10kJsonArray) {
        String env = environment.entrySet().stream()
                .map(e -> "\"" + e.getKey() + "\":\"" + e.getValue().replace("\"", "'") + "\"")
                .collect(Collectors.joining(","));
        String rows = results.stream().map(m -> String.format(Locale.ROOT,
                "{\"scenario\":\"%s\",\"implementation\":\"%s\",\"cyclesPerSecond\":%.1f,\"p50Micros\":%.1f,\"p99Micros\":%.1f,\"maxMillis\":%.2f,\"cycles\":%d}",
                m.scenario().id(), m.contender(), m.cyclesPerSecond(), m.p50Nanos() / 1e3, m.p99Nanos() / 1e3, m.maxNanos() / 1e6, m.cycles()))
                .collect(Collectors.joining(",\n  "));
        return "{\"environment\":{" + env + "},\n \"results\":[\n  " + rows + "],\n \"hold10k\":" + hold10kJsonArray + "}\n";
    }

    /** A grouped horizontal bar chart of cycles/s, one group per scenario, bars scaled per group. */
    public String svg() {
        int barHeight = 16;
        int width = 760;
        int labelWidth = 170;
        StringBuilder bars = new StringBuilder();
        int y = 30;
        for (Map.Entry<Scenario, List<Measurement>> group : byScenario().entrySet()) {
            double max = group.getValue().stream().mapToDouble(Measurement::cyclesPerSecond).max().orElse(1);
            bars.append(String.format(Locale.ROOT, "<text x=\"4\" y=\"%d\" font-weight=\"bold\">%s — %s</text>%n",
                    y, group.getKey().id(), group.getKey().description));
            y += 8;
            for (Measurement m : group.getValue()) {
                int length = (int) Math.round((width - labelWidth - 110) * m.cyclesPerSecond() / max);
                String color = m.contender().startsWith("distlock") ? "#2b7bb9" : m.contender().equals("raw-eval") ? "#999999" : "#e8913a";
                bars.append(String.format(Locale.ROOT,
                        "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text><rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>"
                                + "<text x=\"%d\" y=\"%d\">%,.0f/s</text>%n",
                        labelWidth - 6, y + 12, m.contender(), labelWidth, y, Math.max(1, length), barHeight - 2, color,
                        labelWidth + length + 6, y + 12, m.cyclesPerSecond()));
                y += barHeight + 2;
            }
            y += 22;
        }
        return "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + width + "\" height=\"" + y + "\" font-family=\"sans-serif\" font-size=\"12\">\n"
                + "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
                + "<text x=\"4\" y=\"16\">lock+unlock cycles per second (median of rounds; bars scaled per scenario)</text>\n"
                + bars + "</svg>\n";
    }
}
