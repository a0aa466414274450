package io.distlock.checker;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;

/**
 * A self-contained HTML page with the verdict and a timeline: one lane per process, holding intervals
 * as bars, faults as shaded bands, overlaps and lost updates marked in red.
 */
public final class TimelineReport {
    private static final int WIDTH = 1400;
    private static final int LEFT = 90;
    private static final int LANE = 26;
    private static final int TOP = 30;

    private TimelineReport() {}

    /** Renders the page. */
    public static String html(String title, History history, CheckReport report) {
        TreeSet<Integer> processes = new TreeSet<>();
        history.events().forEach(e -> processes.add(e.process()));
        List<Integer> lanes = new ArrayList<>(processes);
        int height = TOP + lanes.size() * LANE + 40;
        double span = Math.max(1, history.endNanos() - history.startNanos());
        double scale = (WIDTH - LEFT - 10) / span;
        StringBuilder svg = new StringBuilder();
        svg.append(String.format(Locale.ROOT, "<svg xmlns='http://www.w3.org/2000/svg' width='%d' height='%d' font-family='sans-serif' font-size='11'>%n",
                WIDTH, height));
        for (Fault fault : history.faults()) {
            double x = LEFT + (fault.startNanos() - history.startNanos()) * scale;
            double w = Math.max(2, (fault.endNanos() - fault.startNanos()) * scale);
            svg.append(String.format(Locale.ROOT, "<rect x='%.1f' y='%d' width='%.1f' height='%d' fill='#f4c542' fill-opacity='0.35'>"
                    + "<title>%s</title></rect>%n", x, TOP - 12, w, lanes.size() * LANE + 12, escape(fault.description())));
            svg.append(String.format(Locale.ROOT, "<text x='%.1f' y='%d' fill='#8a6d00'>%s</text>%n", x, TOP - 2, escape(fault.kind().id())));
        }
        for (int i = 0; i < lanes.size(); i++) {
            int y = TOP + i * LANE;
            svg.append(String.format(Locale.ROOT, "<text x='4' y='%d'>process %d</text>%n", y + 16, lanes.get(i)));
            svg.append(String.format(Locale.ROOT, "<line x1='%d' y1='%d' x2='%d' y2='%d' stroke='#ddd'/>%n", LEFT, y + LANE - 2, WIDTH - 10, y + LANE - 2));
        }
        for (Hold hold : report.holds()) {
            int y = TOP + lanes.indexOf(hold.process()) * LANE + 4;
            double x = LEFT + (hold.startNanos() - history.startNanos()) * scale;
            double w = Math.max(1, (hold.endNanos() - hold.startNanos()) * scale);
            svg.append(String.format(Locale.ROOT, "<rect x='%.1f' y='%d' width='%.1f' height='16' fill='%s'>"
                    + "<title>process %d%s token %d, %.3f-%.3f s, ended by %s</title></rect>%n", x, y, w,
                    hold.shared() ? "#8fb8ee" : "#3b7dd8", hold.process(), hold.shared() ? " shared" : "", hold.token(),
                    (hold.startNanos() - history.startNanos()) / 1e9, (hold.endNanos() - history.startNanos()) / 1e9, hold.endedBy()));
        }
        for (Hold[] held : report.overlaps()) {
            Hold last = held[held.length - 1];
            long from = last.startNanos();
            long to = Arrays.stream(held).mapToLong(Hold::endNanos).min().orElse(from);
            List<String> ids = Arrays.stream(held).map(h -> Integer.toString(h.process())).toList();
            String who = String.join(", ", ids.subList(0, ids.size() - 1)) + " and " + ids.get(ids.size() - 1);
            for (Hold hold : held) {
                int y = TOP + lanes.indexOf(hold.process()) * LANE + 2;
                svg.append(String.format(Locale.ROOT, "<rect x='%.1f' y='%d' width='%.1f' height='20' fill='none' stroke='#d62728' stroke-width='2'>"
                        + "<title>overlap of processes %s</title></rect>%n", LEFT + (from - history.startNanos()) * scale, y,
                        Math.max(2, (to - from) * scale), who));
            }
        }
        for (Event e : history.events()) {
            if (e.is(Event.Type.OK, Operation.FENCED_WRITE) || e.is(Event.Type.FAIL, Operation.FENCED_WRITE) || e.is(Event.Type.INFO, Operation.LOST)) {
                int y = TOP + lanes.indexOf(e.process()) * LANE;
                String color = e.type() == Event.Type.FAIL ? "#ff7f0e" : e.op() == Operation.LOST ? "#d62728" : "#2ca02c";
                svg.append(String.format(Locale.ROOT, "<line x1='%.1f' y1='%d' x2='%.1f' y2='%d' stroke='%s'><title>%s %s token %d</title></line>%n",
                        LEFT + (e.nanos() - history.startNanos()) * scale, y + 2, LEFT + (e.nanos() - history.startNanos()) * scale, y + 22,
                        color, e.type().name().toLowerCase(Locale.ROOT), e.op().id(), e.token()));
            }
        }
        Map<Long, Event> firstWrite = new HashMap<>();
        for (Event e : history.events()) {
            if (e.is(Event.Type.OK, Operation.WRITE)) {
                Event earlier = firstWrite.putIfAbsent(e.value(), e);
                if (earlier != null) {
                    for (Event write : new Event[] {earlier, e}) {
                        int y = TOP + lanes.indexOf(write.process()) * LANE + 12;
                        svg.append(String.format(Locale.ROOT, "<circle cx='%.1f' cy='%d' r='5' fill='#d62728'><title>lost update: "
                                + "processes %d and %d both wrote %d</title></circle>%n", LEFT + (write.nanos() - history.startNanos()) * scale,
                                y, earlier.process(), e.process(), e.value()));
                    }
                }
            }
        }
        for (int s = 0; s <= span / 1e9; s += Math.max(1, (int) (span / 1e9 / 20))) {
            double x = LEFT + s * 1e9 * scale;
            svg.append(String.format(Locale.ROOT, "<text x='%.1f' y='%d' fill='#666'>%d s</text>%n", x, height - 10, s));
        }
        svg.append("</svg>\n");

        StringBuilder rows = new StringBuilder();
        for (CheckReport.Result r : report.results()) {
            rows.append(String.format(Locale.ROOT, "<tr class='%s'><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>%n",
                    r.holds() ? "ok" : r.claimed() ? "bad" : "warn", r.invariant().id(), r.claimed() ? "yes" : "no",
                    r.holds() ? "ok" : "FAIL", escape(r.summary())));
        }
        StringBuilder examples = new StringBuilder();
        for (CheckReport.Result r : report.results()) {
            if (!r.counterexamples().isEmpty()) {
                examples.append("<h3>").append(escape(r.invariant().id())).append(r.claimed() ? " — violation" : " — not claimed by this lock")
                        .append("</h3>\n<pre>").append(escape(String.join("\n\n", r.counterexamples()))).append("</pre>\n");
            }
        }
        return "<!doctype html>\n<html><head><meta charset='utf-8'><title>" + escape(title) + "</title>\n"
                + "<style>body{font-family:sans-serif;margin:20px}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px 8px}"
                + "tr.bad td{background:#fdd}tr.warn td{background:#ffe9c6}tr.ok td{background:#e6f6e6}pre{background:#f6f6f6;padding:8px}</style>"
                + "</head><body>\n<h1>" + escape(title) + "</h1>\n<p>Verdict: <b>" + (report.passed() ? "every claimed invariant holds" : "VIOLATIONS of claimed invariants")
                + "</b></p>\n<table><tr><th>invariant</th><th>claimed</th><th>result</th><th>details</th></tr>\n" + rows + "</table>\n"
                + "<h2>Timeline</h2>\n<p>Blue: holding intervals (acquire ok until release, loss notice, kill or end). Yellow bands: faults. "
                + "Light bars: shared holds (reads, permits). Red boxes: overlapping holds. Red dots: lost updates (two holders wrote the same value). Ticks: green accepted fenced write, orange rejected, red loss notice.</p>\n"
                + svg + examples + "</body></html>\n";
    }

    private static String escape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("'", "&#39;");
    }
}
