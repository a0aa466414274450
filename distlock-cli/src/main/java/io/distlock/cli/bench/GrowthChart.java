package io.distlock.cli.bench;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * Scenario growth's results as an SVG chart: four panels (round trips per second, heap per held lock, acquire p50 and
 * p99) against the number of locks held, one line per backend, both axes logarithmic (a value of 0 is drawn on the
 * panel's floor).
 */
final class GrowthChart {
    private static final int PANEL_WIDTH = 460;
    private static final int PANEL_HEIGHT = 250;
    private static final int LEFT = 70;
    private static final int TOP = 80;
    private static final int GAP_X = 110;
    private static final int GAP_Y = 90;
    private static final Map<String, String> COLORS = Map.of("redis", "#d62728", "zookeeper", "#2ca02c", "etcd", "#1f77b4",
            "postgres", "#9467bd", "mariadb", "#8c564b", "h2", "#7f7f7f");

    private GrowthChart() {}

    private record Panel(String title, ToDoubleFunction<Growth.Point> value, String unit) {}

    /** Renders the points (of one or more backends) with a machine line, e.g. "2 cores, OpenJDK 17.0.15, 2026-11-27". */
    static String svg(List<Growth.Point> points, String machine) {
        Map<String, List<Growth.Point>> byBackend = new LinkedHashMap<>();
        points.forEach(p -> byBackend.computeIfAbsent(p.backend(), b -> new java.util.ArrayList<>()).add(p));
        int maxHeld = points.stream().mapToInt(Growth.Point::held).max().orElse(1);
        List<Panel> panels = List.of(new Panel("round trips per second to keep the locks", Growth.Point::roundTripsPerSecond, ""),
                new Panel("client heap per held lock (from " + String.format(Locale.ROOT, "%,d", Growth.HEAP_FROM) + " held)", Growth.Point::heapBytesPerLock, " B"),
                new Panel("acquire p50 with that many held", Growth.Point::acquireP50Us, " \u00b5s"),
                new Panel("acquire p99 with that many held", Growth.Point::acquireP99Us, " \u00b5s"));
        int width = LEFT + 2 * PANEL_WIDTH + GAP_X + 20;
        int height = TOP + 2 * PANEL_HEIGHT + GAP_Y + 40;
        StringBuilder svg = new StringBuilder(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
                + "height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">%n<rect width=\"100%%\" "
                + "height=\"100%%\" fill=\"white\"/>%n", width, height, width, height));
        svg.append(BenchChart.text(8, 22, "one client holding 1 to " + String.format(Locale.ROOT, "%,d", maxHeld) + " locks \u2014 "
                + BenchChart.escape(machine), "font-size=\"15\" font-weight=\"bold\""));
        int x = 8;
        for (String backend : byBackend.keySet()) {
            svg.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"38\" width=\"22\" height=\"4\" fill=\"%s\"/>%n", x, color(backend)));
            svg.append(BenchChart.text(x + 28, 44, BenchChart.escape(backend), ""));
            x += 40 + backend.length() * 8;
        }
        for (int i = 0; i < panels.size(); i++) {
            int left = LEFT + (i % 2) * (PANEL_WIDTH + GAP_X);
            int top = TOP + (i / 2) * (PANEL_HEIGHT + GAP_Y);
            panel(svg, panels.get(i), byBackend, maxHeld, left, top);
        }
        return svg.append("</svg>\n").toString();
    }

    private static void panel(StringBuilder svg, Panel panel, Map<String, List<Growth.Point>> byBackend, int maxHeld, int left, int top) {
        double low = Double.MAX_VALUE;
        double high = 0;
        for (List<Growth.Point> line : byBackend.values()) {
            for (Growth.Point p : line) {
                double v = panel.value().applyAsDouble(p);
                if (v > 0) { // NaN (not measured) and 0 are not
                    low = Math.min(low, v);
                    high = Math.max(high, v);
                }
            }
        }
        if (high == 0) {
            low = 1;
            high = 10;
        }
        double yMin = Math.pow(10, Math.floor(Math.log10(low)));
        double yMax = Math.pow(10, Math.ceil(Math.log10(high)));
        if (yMax <= yMin) {
            yMax = yMin * 10;
        }
        double xMax = Math.pow(10, Math.ceil(Math.log10(Math.max(10, maxHeld))));
        svg.append(BenchChart.text(left, top - 12, BenchChart.escape(panel.title()), "font-weight=\"bold\""));
        svg.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#999\"/>%n", left,
                top, PANEL_WIDTH, PANEL_HEIGHT));
        for (double tick = yMin; tick <= yMax * 1.0001; tick *= 10) {
            double y = yOf(tick, yMin, yMax, top);
            svg.append(line(left, y, left + PANEL_WIDTH, y, "#eee"));
            svg.append(BenchChart.text(left - 6, y + 4, BenchChart.count(tick) + panel.unit(), "text-anchor=\"end\""));
        }
        for (double tick = 1; tick <= xMax * 1.0001; tick *= 10) {
            double x = xOf(tick, xMax, left);
            svg.append(line(x, top, x, top + PANEL_HEIGHT, "#eee"));
            svg.append(BenchChart.text(x, top + PANEL_HEIGHT + 16, BenchChart.count(tick), "text-anchor=\"middle\""));
        }
        svg.append(BenchChart.text(left + PANEL_WIDTH / 2.0, top + PANEL_HEIGHT + 34, "locks held", "text-anchor=\"middle\" fill=\"#555\""));
        for (Map.Entry<String, List<Growth.Point>> line : byBackend.entrySet()) {
            StringBuilder path = new StringBuilder();
            for (Growth.Point p : line.getValue()) {
                double v = panel.value().applyAsDouble(p);
                if (Double.isNaN(v)) {
                    continue; // not measured at this level
                }
                double x = xOf(p.held(), xMax, left);
                double y = v > 0 ? yOf(v, yMin, yMax, top) : top + PANEL_HEIGHT;
                path.append(path.length() == 0 ? "M" : " L").append(String.format(Locale.ROOT, "%.1f %.1f", x, y));
                svg.append(String.format(Locale.ROOT, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%d\" fill=\"%s\"><title>%s, %d held%s: %.1f%s</title></circle>%n",
                        x, y, p.stalled() ? 5 : 3, color(line.getKey()), BenchChart.escape(line.getKey()), p.held(),
                        p.stalled() ? " (stalled: no more could be acquired in time)" : "", v, BenchChart.escape(panel.unit())));
            }
            svg.append(String.format(Locale.ROOT, "<path d=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"/>%n", path,
                    color(line.getKey())));
        }
    }

    private static double xOf(double held, double xMax, int left) {
        return left + PANEL_WIDTH * Math.log10(Math.max(1, held)) / Math.log10(xMax);
    }

    private static double yOf(double value, double yMin, double yMax, int top) {
        double fraction = (Math.log10(value) - Math.log10(yMin)) / (Math.log10(yMax) - Math.log10(yMin));
        return top + PANEL_HEIGHT * (1 - fraction);
    }

    private static String color(String backend) {
        return COLORS.getOrDefault(backend, "#000000");
    }

    private static String line(double x1, double y1, double x2, double y2, String stroke) {
        return String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>%n", x1, y1, x2, y2, stroke);
    }
}
