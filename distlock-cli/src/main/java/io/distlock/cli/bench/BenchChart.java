package io.distlock.cli.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.DoubleFunction;
import java.util.stream.Collectors;

/**
 * The benchmark results as an SVG chart: one panel per scenario and backend (Redis, ZooKeeper, etcd, each
 * SQL database), each scaled to itself so that a slow backend's bars are not slivers next to a fast one's.
 * A panel shows throughput (cycles/s) and, next to it, latency (p50 bar, whisker to p99), each with an
 * axis that turns logarithmic when the panel's values differ by 100x or more. {@code raw-eval} (two EVALs
 * without a lock: the Redis limit, not a lock) is drawn as a dashed baseline, not as a bar.
 */
final class BenchChart {
    /** The contender drawn as a baseline instead of a bar. */
    static final String BASELINE = "raw-eval";

    private static final int WIDTH = 1050;
    private static final int LABEL = 150;
    private static final int CHART = 300;
    private static final int THROUGHPUT_X = LABEL + 10;
    private static final int THROUGHPUT_TEXT = THROUGHPUT_X + CHART + 6;
    private static final int LATENCY_X = THROUGHPUT_TEXT + 84;
    private static final int LATENCY_TEXT = LATENCY_X + CHART + 6;
    private static final int BAR = 16;
    private static final int GAP = 4;
    private static final String DISTLOCK = "#0072b2";
    private static final String OTHER = "#e69f00";
    private static final String BASE = "#555555";

    private BenchChart() {}

    /** Which backend a contender runs on, from its name: {@code x/db} is SQL on db, then ZooKeeper, etcd, else Redis. */
    static String backendOf(String contender) {
        int slash = contender.indexOf('/');
        if (slash >= 0) {
            return "SQL: " + contender.substring(slash + 1);
        }
        if (contender.contains("zookeeper") || contender.startsWith("curator")) {
            return "ZooKeeper";
        }
        if (contender.contains("etcd")) {
            return "etcd";
        }
        return "Redis";
    }

    /**
     * Renders the chart.
     *
     * @param results median measurements, in the order to draw them
     * @param title what was run, e.g. "lock+unlock cycles"
     * @param machine where and when, e.g. "2 cores, AMD EPYC 7B13, OpenJDK 17.0.15, 2026-11-24"
     */
    static String svg(List<Measurement> results, String title, String machine) {
        Map<String, List<Measurement>> panels = new LinkedHashMap<>();
        for (Measurement m : results) {
            panels.computeIfAbsent(m.scenario().id() + " \u2014 " + m.scenario().description + " \u00b7 " + backendOf(m.contender()),
                    key -> new ArrayList<>()).add(m);
        }
        StringBuilder body = new StringBuilder();
        int y = 74;
        for (Map.Entry<String, List<Measurement>> panel : panels.entrySet()) {
            y = panel(body, panel.getKey(), panel.getValue(), y);
        }
        StringBuilder svg = new StringBuilder();
        svg.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
                + "font-family=\"sans-serif\" font-size=\"12\">%n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>%n", WIDTH, y, WIDTH, y));
        svg.append(text(8, 20, escape(title) + " \u2014 " + escape(machine), "font-size=\"15\" font-weight=\"bold\""));
        svg.append(legend(42, results.stream().anyMatch(m -> m.contender().equals(BASELINE))));
        return svg.append(body).append("</svg>\n").toString();
    }

    private static String legend(int y, boolean baseline) {
        return rect(8, y - 10, 22, 12, DISTLOCK) + text(36, y, "distlock", "")
                + rect(100, y - 10, 22, 12, OTHER) + text(128, y, "other libraries and the textbook lock", "")
                + (!baseline ? "" : String.format(Locale.ROOT, "<line x1=\"360\" y1=\"%d\" x2=\"360\" y2=\"%d\" stroke=\"%s\" stroke-width=\"2\" stroke-dasharray=\"5 3\"/>",
                        y - 12, y + 3, BASE)
                + text(368, y, "raw-eval: two EVALs per cycle, no lock (the Redis limit)", ""))
                + rect(700, y - 8, 22, 8, DISTLOCK, "fill-opacity=\"0.55\"")
                + String.format(Locale.ROOT, "<line x1=\"722\" y1=\"%d\" x2=\"744\" y2=\"%d\" stroke=\"#222\"/><line x1=\"744\" y1=\"%d\" x2=\"744\" y2=\"%d\" stroke=\"#222\"/>",
                        y - 4, y - 4, y - 9, y + 1)
                + text(750, y, "latency: bar to p50, whisker to p99", "") + "\n";
    }

    private static int panel(StringBuilder out, String heading, List<Measurement> all, int top) {
        Measurement baseline = all.stream().filter(m -> m.contender().equals(BASELINE)).findFirst().orElse(null);
        List<Measurement> bars = all.stream().filter(m -> !m.contender().equals(BASELINE)).toList();
        List<Measurement> drawn = bars.isEmpty() ? all : bars;
        Scale throughput = Scale.of(all.stream().mapToDouble(Measurement::cyclesPerSecond).toArray());
        Scale latency = Scale.of(all.stream().flatMapToDouble(m -> java.util.stream.DoubleStream.of(m.p50Nanos() / 1e3, m.p99Nanos() / 1e3)).toArray());
        out.append(text(8, top + 14, escape(heading), "font-weight=\"bold\" font-size=\"13\""));
        int y = top + 24;
        out.append(text(THROUGHPUT_X, y + 10, "cycles/s" + (throughput.log ? " (log scale)" : ""), "fill=\"#555\""));
        out.append(text(LATENCY_X, y + 10, "latency" + (latency.log ? " (log scale)" : ""), "fill=\"#555\""));
        y += 16;
        int plotTop = y;
        int plotBottom = y + drawn.size() * (BAR + GAP);
        axis(out, throughput, THROUGHPUT_X, plotTop, plotBottom, BenchChart::count);
        axis(out, latency, LATENCY_X, plotTop, plotBottom, BenchChart::micros);
        for (Measurement m : drawn) {
            String color = m.contender().startsWith("distlock") ? DISTLOCK : m.contender().equals(BASELINE) ? BASE : OTHER;
            out.append(text(LABEL, y + 12, escape(m.contender()), "text-anchor=\"end\""));
            double length = throughput.x(m.cyclesPerSecond(), CHART);
            out.append(rect(THROUGHPUT_X, y, Math.max(1, length), BAR, color))
                    .append(text(THROUGHPUT_TEXT, y + 12, String.format(Locale.ROOT, "%,.0f/s", m.cyclesPerSecond()), ""));
            double p50 = latency.x(m.p50Nanos() / 1e3, CHART);
            double p99 = latency.x(m.p99Nanos() / 1e3, CHART);
            out.append(rect(LATENCY_X, y + 3, Math.max(1, p50), BAR - 6, color, "fill-opacity=\"0.55\""))
                    .append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#222\"/>"
                            + "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#222\"/>%n",
                            LATENCY_X + p50, y + BAR / 2, LATENCY_X + p99, y + BAR / 2, LATENCY_X + p99, y + 3, LATENCY_X + p99, y + BAR - 3))
                    .append(text(LATENCY_TEXT, y + 12, "p50 " + micros(m.p50Nanos() / 1e3) + " \u00b7 p99 " + micros(m.p99Nanos() / 1e3),
                            "font-size=\"11\""));
            y += BAR + GAP;
        }
        if (baseline != null && !bars.isEmpty()) {
            baselineLine(out, THROUGHPUT_X + throughput.x(baseline.cyclesPerSecond(), CHART), plotTop, plotBottom,
                    "raw-eval " + String.format(Locale.ROOT, "%,.0f/s", baseline.cyclesPerSecond()));
            baselineLine(out, LATENCY_X + latency.x(baseline.p50Nanos() / 1e3, CHART), plotTop, plotBottom,
                    "raw-eval p50 " + micros(baseline.p50Nanos() / 1e3));
        }
        return plotBottom + (baseline != null && !bars.isEmpty() ? 52 : 40);
    }

    private static void baselineLine(StringBuilder out, double x, int top, int bottom, String label) {
        out.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\" stroke-width=\"2\" "
                + "stroke-dasharray=\"5 3\"><title>%s</title></line>%n", x, top - 4, x, bottom + 4, BASE, escape(label)));
        out.append(text(x, bottom + 29, "\u25b2 " + escape(label), "font-size=\"10\" fill=\"" + BASE + "\" text-anchor=\"middle\""));
    }

    private static void axis(StringBuilder out, Scale scale, int x0, int top, int bottom, DoubleFunction<String> format) {
        out.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#999\"/>"
                + "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#999\"/>%n", x0, bottom, x0 + CHART, bottom, x0, top - 2, x0, bottom));
        for (double tick : scale.ticks()) {
            double x = x0 + scale.x(tick, CHART);
            out.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#e4e4e4\"/>"
                    + "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#999\"/>%n", x, top - 2, x, bottom, x, bottom, x, bottom + 4));
            out.append(text(x, bottom + 15, format.apply(tick), "font-size=\"10\" fill=\"#555\" text-anchor=\"middle\""));
        }
    }

    /** A value axis from 0 (linear) or from a power of ten (log, when the values differ by 100x or more). */
    record Scale(double min, double max, boolean log) {
        static Scale of(double[] values) {
            double lo = Double.MAX_VALUE;
            double hi = 0;
            for (double v : values) {
                if (v > 0) {
                    lo = Math.min(lo, v);
                    hi = Math.max(hi, v);
                }
            }
            if (hi == 0) {
                return new Scale(0, 1, false);
            }
            if (hi / lo >= 100) {
                return new Scale(Math.pow(10, Math.floor(Math.log10(lo))), Math.pow(10, Math.ceil(Math.log10(hi))), true);
            }
            double step = niceStep(hi / 5);
            return new Scale(0, Math.ceil(hi / step) * step, false);
        }

        /** The offset of {@code value} from the axis start, for an axis {@code length} pixels long. */
        double x(double value, double length) {
            if (log) {
                double v = Math.max(value, min);
                return length * (Math.log10(v) - Math.log10(min)) / (Math.log10(max) - Math.log10(min));
            }
            return length * Math.max(0, value - min) / (max - min);
        }

        List<Double> ticks() {
            List<Double> ticks = new ArrayList<>();
            if (log) {
                int decades = (int) Math.round(Math.log10(max / min));
                for (double decade = min; decade <= max * 1.0001; decade *= 10) {
                    ticks.add(decade);
                    if (decades <= 2 && decade * 10 <= max * 1.0001) {
                        ticks.add(decade * 2);
                        ticks.add(decade * 5);
                    }
                }
                return ticks;
            }
            double step = niceStep(max / 5);
            for (double t = 0; t <= max * 1.0001; t += step) {
                ticks.add(t);
            }
            return ticks;
        }

        private static double niceStep(double raw) {
            double power = Math.pow(10, Math.floor(Math.log10(raw)));
            for (double m : new double[] {1, 2, 2.5, 5}) {
                if (m * power >= raw) {
                    return m * power;
                }
            }
            return 10 * power;
        }
    }

    /** 5000 as "5k", 1200000 as "1.2M". */
    static String count(double value) {
        if (value >= 1e6) {
            return trim(value / 1e6) + "M";
        }
        return value >= 1e3 ? trim(value / 1e3) + "k" : trim(value);
    }

    /** Microseconds as "850 µs", "1.5 ms", "2 s". */
    static String micros(double value) {
        if (value >= 1e6) {
            return trim(value / 1e6) + " s";
        }
        return value >= 1e3 ? trim(value / 1e3) + " ms" : trim(value) + " \u00b5s";
    }

    private static String trim(double value) {
        String text = String.format(Locale.ROOT, value >= 100 ? "%.0f" : value >= 10 ? "%.1f" : "%.2f", value);
        return text.contains(".") ? text.replaceAll("0+$", "").replaceAll("\\.$", "") : text;
    }

    private static String rect(double x, double y, double w, double h, String fill) {
        return rect(x, y, w, h, fill, "");
    }

    private static String rect(double x, double y, double w, double h, String fill, String extra) {
        return String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\" %s/>", x, y, w, h, fill, extra);
    }

    /** An SVG text element at (x, y); {@code content} must be escaped already. */
    static String text(double x, double y, String content, String extra) {
        return String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\" %s>%s</text>%n", x, y, extra, content);
    }

    /** Escapes text for SVG content and attribute values. */
    static String escape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }

    /** A machine line from a run's environment: cores, CPU, JDK and the date (yyyy-mm-dd). */
    static String machine(Map<String, String> environment) {
        List<String> parts = new ArrayList<>();
        if (environment.containsKey("cores")) {
            parts.add(environment.get("cores") + " cores");
        }
        for (String key : List.of("cpu", "jdk")) {
            if (environment.containsKey(key) && !environment.get(key).isBlank()) {
                parts.add(environment.get(key).replace("OpenJDK 64-Bit Server VM", "OpenJDK"));
            }
        }
        String date = environment.getOrDefault("date", "");
        if (date.length() >= 10) {
            parts.add(date.substring(0, 10));
        }
        return parts.stream().collect(Collectors.joining(", "));
    }
}
