package io.distlock.checker;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * A self-contained HTML page (no network needed to view it) with the verdict, the invariants, a zoomable
 * timeline and the overlaps grouped by the faults near them.
 *
 * <p>The timeline has a row for the nemesis (every fault) and one per process: holds as bars, the faults
 * that hit a process on its own row, overlapping holds outlined and joined, and marks for fenced writes,
 * loss notices and lost updates. Tokens are shown by rank ({@code t1} is the run's smallest token), with the
 * raw value in the tooltip. The page draws the timeline with its own script ({@code timeline.js}, inlined)
 * from the data embedded as JSON: wheel or buttons zoom, dragging pans, clicking a hold or an overlap entry
 * highlights both holders and the entry. The address fragment selects and zooms: {@code #select=o3} (the
 * fourth overlap), {@code #select=h12} (a hold), {@code #t=1500-2500} (milliseconds into the run).
 */
public final class TimelineReport {
    private static final String SCRIPT = resource("timeline.js");
    private static final String STYLE = resource("timeline.css");

    /** The legend: what each mark means, and its class, which timeline.css colours for the swatch and the drawing alike. */
    private static final Map<String, String> LEGEND = legend();

    private TimelineReport() {}

    /**
     * What the page says above the timeline.
     *
     * @param title the run: lock, backend, time, faults, seed
     * @param verdict the verdict line the command printed (OK, VIOLATION or INCONCLUSIVE, with its reason)
     * @param conclusive false when the run was inconclusive (the verdict is then shown as a warning)
     * @param repeatCommand the command that runs the check again, or null (a replayed history)
     */
    public record Header(String title, String verdict, boolean conclusive, @Nullable String repeatCommand) {}

    /**
     * Overlaps judged alike that have the same faults near them.
     *
     * @param excuse how the overlaps were judged (NONE: violations)
     * @param causes the faults near these overlaps (from three leases before each until its end), empty if none
     * @param overlaps indexes into {@link CheckReport#overlaps()}
     */
    record OverlapGroup(Overlap.Excuse excuse, List<Fault> causes, List<Integer> overlaps) {}

    /** Renders the page. */
    public static String html(Header header, History history, CheckReport report) {
        List<OverlapGroup> groups = groups(history, report.overlaps());
        String verdictClass = !report.passed() ? "bad" : header.conclusive() ? "ok" : "warn";
        StringBuilder page = new StringBuilder(64 * 1024);
        page.append("<!doctype html>\n<html lang='en'><head><meta charset='utf-8'>")
                .append("<meta name='viewport' content='width=device-width, initial-scale=1'>")
                .append("<title>").append(escape(header.title())).append("</title>\n<style>\n").append(STYLE).append("</style></head>\n<body>\n")
                .append("<h1>").append(escape(header.title())).append("</h1>\n")
                .append("<p class='verdict ").append(verdictClass).append("'>").append(escape(header.verdict())).append("</p>\n");
        if (header.repeatCommand() != null) {
            page.append("<p class='repeat'>Run it again: <code>").append(escape(header.repeatCommand())).append("</code></p>\n");
        }
        page.append("<p class='stats'>").append(escape(stats(report.stats()))).append("</p>\n");
        page.append(invariants(report));
        page.append("<h2>Timeline</h2>\n").append(legendHtml())
                .append("<div class='controls'><button type='button' data-zoom='fit'>Fit</button>"
                        + "<button type='button' data-zoom='in' title='zoom in (+)'>+</button>"
                        + "<button type='button' data-zoom='out' title='zoom out (-)'>&minus;</button>")
                .append(report.overlaps().isEmpty() ? "" : "<button type='button' data-step='-1'>&larr; overlap</button>"
                        + "<button type='button' data-step='1'>overlap &rarr;</button>")
                .append("<span id='window'></span><span class='hint'>wheel or +/- to zoom, drag to pan, click a bar to select it</span></div>\n")
                .append("<div id='timeline'><noscript>The timeline is drawn by a script; the lists below do not need one.</noscript></div>\n")
                .append("<div id='selection'>Nothing selected: click a hold, a fault or an overlap entry.</div>\n")
                .append("<div id='tip' hidden></div>\n");
        page.append(overlapList(history, report, groups));
        page.append(counterexamples(report));
        page.append("<script type='application/json' id='timeline-data'>").append(data(history, report, groups)).append("</script>\n")
                .append("<script>\n").append(SCRIPT).append("</script>\n</body></html>\n");
        return page.toString();
    }

    /** Groups the overlaps by how they were judged and the faults near them: violations first, then the largest groups. */
    static List<OverlapGroup> groups(History history, List<Overlap> overlaps) {
        record Key(Overlap.Excuse excuse, List<Fault> causes) {}
        Map<Key, List<Integer>> byKey = new LinkedHashMap<>();
        for (int i = 0; i < overlaps.size(); i++) {
            Overlap overlap = overlaps.get(i);
            byKey.computeIfAbsent(new Key(overlap.excuse(), history.faultsNear(overlap.startNanos(), overlap.endNanos())),
                    key -> new ArrayList<>()).add(i);
        }
        List<OverlapGroup> groups = new ArrayList<>();
        byKey.forEach((key, members) -> groups.add(new OverlapGroup(key.excuse(), key.causes(), List.copyOf(members))));
        groups.sort((a, b) -> a.excuse() != b.excuse() ? a.excuse().compareTo(b.excuse()) : b.overlaps().size() - a.overlaps().size());
        return groups;
    }

    /**
     * The heading of a group: "71 pairs allowed (an earlier holder was past its lease), near 2 faults: pause of process 3
     * at 12.300 s; restart at 14.000 s", or "2 pairs VIOLATING exclusion, near no fault".
     */
    static String label(History history, CheckReport report, OverlapGroup group) {
        boolean pairs = group.overlaps().stream().allMatch(i -> report.overlaps().get(i).holds().size() == 2);
        String what = group.overlaps().size() + (pairs ? (group.overlaps().size() == 1 ? " pair" : " pairs")
                : group.overlaps().size() == 1 ? " overlap" : " overlaps")
                + (group.excuse() == Overlap.Excuse.NONE ? " VIOLATING exclusion" : " allowed (" + group.excuse().description() + ")");
        if (group.causes().isEmpty()) {
            return what + ", near no fault";
        }
        return what + ", near " + (group.causes().size() == 1 ? "1 fault: " : group.causes().size() + " faults: ")
                + group.causes().stream().map(f -> f.description() + " at " + seconds(history, f.startNanos())).collect(Collectors.joining("; "));
    }

    /** The rank of each distinct non-zero token, from 1 for the smallest. */
    static Map<Long, Integer> tokenRanks(History history) {
        TreeSet<Long> tokens = new TreeSet<>();
        history.events().stream().filter(e -> e.token() != 0).forEach(e -> tokens.add(e.token()));
        Map<Long, Integer> ranks = new HashMap<>();
        for (long token : tokens) {
            ranks.put(token, ranks.size() + 1);
        }
        return ranks;
    }

    private static String stats(CheckReport.Stats stats) {
        return String.format(Locale.ROOT, "%d processes, %d acquisitions, %d fenced writes accepted and %d rejected by the store, "
                + "%d acknowledged increments (the register ends at %d), %d faults.", stats.processes(), stats.acquisitions(),
                stats.acceptedFencedWrites(), stats.rejectedFencedWrites(), stats.acknowledgedIncrements(), stats.finalRegister(),
                stats.faults());
    }

    private static String invariants(CheckReport report) {
        StringBuilder table = new StringBuilder("<table class='invariants'><tr><th>invariant</th><th>what it says</th><th>claimed</th>"
                + "<th>result</th><th>details</th></tr>\n");
        for (CheckReport.Result r : report.results()) {
            table.append("<tr class='").append(r.holds() ? "ok" : r.claimed() ? "bad" : "warn").append("'><td>")
                    .append(escape(r.invariant().id())).append("</td><td>").append(escape(r.invariant().statement())).append("</td><td>")
                    .append(r.claimed() ? "yes" : "no").append("</td><td>").append(escape(r.outcome())).append("</td><td>")
                    .append(escape(r.summary())).append("</td></tr>\n");
        }
        return table.append("</table>\n<p class='note'>Only claimed invariants decide the verdict: a lock that does not claim one "
                + "(a lease lock cannot stop a paused holder from believing it still holds) is shown violating it without failing.</p>\n")
                .toString();
    }

    private static String legendHtml() {
        StringBuilder legend = new StringBuilder("<ul class='legend'>");
        LEGEND.forEach((what, cls) -> legend.append("<li><span class='sw ").append(cls).append("'></span>").append(escape(what)).append("</li>"));
        return legend.append("</ul>\n<p class='note'>Tokens are numbered by size: t1 is the smallest fencing token of this run "
                + "(the raw value is in each tooltip). Client faults are drawn on the row of the process they hit and on the "
                + "nemesis row; server faults on the nemesis row and faintly across every process.</p>\n").toString();
    }

    private static Map<String, String> legend() {
        Map<String, String> legend = new LinkedHashMap<>();
        legend.put("exclusive hold", "hold");
        legend.put("shared hold (read, permit)", "shared");
        legend.put("hold past its recorded lease end", "pastlease");
        legend.put("overlap violating exclusion", "overlap violation");
        legend.put("overlap allowed (past a lease, or a fault that loses locks)", "overlap allowed");
        legend.put("fault", "fault");
        legend.put("fenced write accepted", "accepted");
        legend.put("fenced write rejected", "rejected");
        legend.put("loss notice (lease lost or found invalid)", "lost");
        legend.put("lost update (two holders wrote the same value)", "lostupdate");
        return legend;
    }

    private static String overlapList(History history, CheckReport report, List<OverlapGroup> groups) {
        if (report.overlaps().isEmpty()) {
            return "<h2>Overlaps</h2>\n<p>No two processes held the lock at the same time against its rules.</p>\n";
        }
        Map<Long, Integer> ranks = tokenRanks(history);
        StringBuilder list = new StringBuilder("<h2>Overlaps</h2>\n<p class='note'>Grouped by how they were judged (an overlap is "
                + "allowed only when a holder was already past the lease deadline it recorded, or across a fault after which the "
                + "deployment does not promise its locks) and by the faults near them (active from three leases before the overlap "
                + "until its end). Click one to see it on the timeline.</p>\n");
        for (OverlapGroup group : groups) {
            list.append("<details open><summary>").append(escape(label(history, report, group))).append("</summary><ol>\n");
            for (int i : group.overlaps()) {
                Overlap overlap = report.overlaps().get(i);
                List<Hold> held = overlap.holds();
                String holders = held.stream().map(h -> "process " + h.process() + " (" + token(ranks, h.token())
                        + seconds(history, h.startNanos()) + "-" + seconds(history, h.endNanos()) + ", ended by " + h.endedBy()
                        + (h.leaseRecorded() ? ", lease until " + seconds(history, h.leaseEndNanos()) : "") + ")")
                        .collect(Collectors.joining(held.size() == 2 ? " and " : ", "));
                list.append("<li id='o").append(i).append("'><a href='#select=o").append(i).append("'>")
                        .append(String.format(Locale.ROOT, "%.1f ms at %s", (overlap.endNanos() - overlap.startNanos()) / 1e6,
                                seconds(history, overlap.startNanos())))
                        .append("</a>: ").append(escape(holders)).append("</li>\n");
            }
            list.append("</ol></details>\n");
        }
        return list.toString();
    }

    private static String token(Map<Long, Integer> ranks, long token) {
        return token == 0 ? "" : "t" + ranks.get(token) + ", ";
    }

    private static String counterexamples(CheckReport report) {
        StringBuilder examples = new StringBuilder();
        for (CheckReport.Result r : report.results()) {
            if (!r.counterexamples().isEmpty()) {
                examples.append("<details><summary>").append(escape(r.invariant().id())).append(r.claimed() ? ": violation" : ": violated, not claimed by this lock")
                        .append(" (the first ").append(r.counterexamples().size()).append(", with their events)</summary><pre>")
                        .append(escape(String.join("\n\n", r.counterexamples()))).append("</pre></details>\n");
            }
        }
        return examples.length() == 0 ? "" : "<h2>Counterexamples</h2>\n" + examples;
    }

    /** The timeline's data: times in milliseconds from the start of the run. */
    private static String data(History history, CheckReport report, List<OverlapGroup> groups) {
        Map<Long, Integer> ranks = tokenRanks(history);
        TreeSet<Integer> processes = new TreeSet<>();
        history.events().forEach(e -> processes.add(e.process()));
        history.faults().stream().filter(f -> f.process() >= 0).forEach(f -> processes.add(f.process()));
        Json json = new Json();
        json.open('{').key("end").number(ms(history, history.endNanos())).key("lanes").open('[');
        processes.forEach(p -> json.number(p));
        json.close(']');
        json.key("holds").open('[');
        Map<Hold, Integer> holdIndex = new IdentityHashMap<>();
        for (Hold h : report.holds()) {
            holdIndex.put(h, holdIndex.size());
            json.open('{').key("p").number(h.process()).key("s").number(ms(history, h.startNanos())).key("e").number(ms(history, h.endNanos()))
                    .key("t").number(h.token() == 0 ? 0 : Objects.requireNonNull(ranks.get(h.token()), "every token has a rank")).key("raw").string(Long.toString(h.token()))
                    .key("by").string(h.endedBy()).key("sh").bool(h.shared())
                    .key("le").number(h.leaseRecorded() ? ms(history, h.leaseEndNanos()) : -1).close('}');
        }
        json.close(']').key("faults").open('[');
        for (Fault f : history.faults()) {
            json.open('{').key("k").string(f.kind().id()).key("p").number(f.process()).key("s").number(ms(history, f.startNanos()))
                    .key("e").number(ms(history, f.endNanos())).key("d").string(f.description()).close('}');
        }
        json.close(']').key("marks").open('[');
        Map<Long, Event> firstWrite = new HashMap<>();
        for (Event e : history.events()) {
            String mark = e.is(Event.Type.OK, Operation.FENCED_WRITE) ? "accepted" : e.is(Event.Type.FAIL, Operation.FENCED_WRITE) ? "rejected"
                    : e.is(Event.Type.INFO, Operation.LOST) || e.is(Event.Type.INFO, Operation.ABORT) ? "lost" : null;
            if (mark != null) {
                mark(json, history, ranks, e, mark, e.note());
            }
            if (e.is(Event.Type.OK, Operation.WRITE)) {
                Event earlier = firstWrite.putIfAbsent(e.value(), e);
                if (earlier != null) {
                    String note = "processes " + earlier.process() + " and " + e.process() + " both wrote " + e.value();
                    mark(json, history, ranks, earlier, "lostupdate", note);
                    mark(json, history, ranks, e, "lostupdate", note);
                }
            }
        }
        json.close(']').key("overlaps").open('[');
        for (int i = 0; i < report.overlaps().size(); i++) {
            Overlap overlap = report.overlaps().get(i);
            json.open('{').key("holds").open('[');
            for (Hold h : overlap.holds()) {
                json.number(holdIndex.getOrDefault(h, -1));
            }
            int group = 0;
            while (!groups.get(group).overlaps().contains(i)) {
                group++;
            }
            json.close(']').key("s").number(ms(history, overlap.startNanos())).key("e").number(ms(history, overlap.endNanos()))
                    .key("g").number(group).key("v").bool(overlap.violation()).close('}');
        }
        json.close(']').key("groups").open('[');
        for (OverlapGroup group : groups) {
            json.string(label(history, report, group));
        }
        return json.close(']').close('}').toString();
    }

    private static void mark(Json json, History history, Map<Long, Integer> ranks, Event e, String mark, String note) {
        json.open('{').key("p").number(e.process()).key("at").number(ms(history, e.nanos())).key("m").string(mark)
                .key("t").number(e.token() == 0 ? 0 : ranks.getOrDefault(e.token(), 0)).key("raw").string(Long.toString(e.token()))
                .key("note").string(note).close('}');
    }

    private static double ms(History history, long nanos) {
        return Math.round((nanos - history.startNanos()) / 1e3) / 1e3;
    }

    private static String seconds(History history, long nanos) {
        return String.format(Locale.ROOT, "%.3f s", (nanos - history.startNanos()) / 1e9);
    }

    static String escape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("'", "&#39;").replace("\"", "&quot;");
    }

    private static String resource(String name) {
        try (InputStream in = TimelineReport.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + name + " next to " + TimelineReport.class.getName());
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Just enough JSON writing for the timeline's data; {@code <} is escaped so that the data cannot end its script element. */
    private static final class Json {
        private final StringBuilder out = new StringBuilder(256 * 1024);
        private boolean first = true;

        Json open(char bracket) {
            separate();
            out.append(bracket);
            first = true;
            return this;
        }

        Json close(char bracket) {
            out.append(bracket);
            first = false;
            return this;
        }

        Json key(String key) {
            string(key);
            out.append(':');
            first = true;
            return this;
        }

        Json number(double value) {
            separate();
            out.append(value == Math.rint(value) && Math.abs(value) < 1e15 ? Long.toString((long) value) : Double.toString(value));
            return this;
        }

        Json bool(boolean value) {
            separate();
            out.append(value);
            return this;
        }

        Json string(String value) {
            separate();
            out.append('"');
            for (char c : value.toCharArray()) {
                switch (c) {
                    case '"' -> out.append("\\\"");
                    case '\\' -> out.append("\\\\");
                    case '<' -> out.append("\\u003c");
                    default -> {
                        if (c < 0x20) {
                            out.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                        } else {
                            out.append(c);
                        }
                    }
                }
            }
            out.append('"');
            return this;
        }

        private void separate() {
            if (!first) {
                out.append(',');
            }
            first = false;
        }

        @Override
        public String toString() {
            return out.toString();
        }
    }
}
