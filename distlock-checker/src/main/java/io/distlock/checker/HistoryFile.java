package io.distlock.checker;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads and writes a {@link History} as text, one line per item, so a run can be checked again later
 * (after a checker change, or on another machine): {@code RUN start end lease register [sharedLimit]
 * [losing=kind,kind] [requeue=kind,kind] [order=nanos] [wait=nanos]} (the {@link History.Rules}: the permit count when not unlimited, the
 * faults that lose locks, the arrival-order bound), then {@code EV ...} event lines,
 * {@code FAULT kind process start end description} and {@code FENCED token process value} lines.
 */
public final class HistoryFile {
    private HistoryFile() {}

    /** Writes the history to a file. */
    public static void write(History history, Path file) throws IOException {
        List<String> lines = new ArrayList<>();
        History.Rules rules = history.rules();
        lines.add("RUN " + history.startNanos() + " " + history.endNanos() + " " + history.leaseNanos() + " " + history.finalRegister()
                + (rules.sharedLimit() == History.UNLIMITED ? "" : " " + rules.sharedLimit())
                + (rules.lockLosingFaults().isEmpty() ? "" : " losing=" + rules.lockLosingFaults().stream().sorted()
                        .map(FaultKind::id).collect(java.util.stream.Collectors.joining(",")))
                + (rules.requeueFaults().isEmpty() ? "" : " requeue=" + rules.requeueFaults().stream().sorted()
                        .map(FaultKind::id).collect(java.util.stream.Collectors.joining(",")))
                + (rules.orderBoundNanos() == 0 ? "" : " order=" + rules.orderBoundNanos())
                + (rules.waitNanos() == 0 ? "" : " wait=" + rules.waitNanos()));
        history.events().forEach(e -> lines.add(e.toLine()));
        history.faults().forEach(f -> lines.add("FAULT " + f.kind().id() + " " + f.process() + " " + f.startNanos() + " " + f.endNanos()
                + " " + f.description().replaceAll("[\\r\\n]+", " ")));
        history.fencedLog().forEach(w -> lines.add("FENCED " + w.token() + " " + w.process() + " " + w.value()));
        Files.write(file, lines, StandardCharsets.UTF_8);
    }

    /** Reads a history written by {@link #write}; a malformed line is reported with its number. */
    public static History read(Path file) throws IOException {
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        List<Event> events = new ArrayList<>();
        List<Fault> faults = new ArrayList<>();
        List<FencedWrite> fenced = new ArrayList<>();
        long[] run = null;
        History.Rules rules = History.Rules.DEFAULT;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            try {
                if (line.startsWith(Event.LINE_PREFIX)) {
                    events.add(Event.parse(line));
                } else if (line.startsWith("RUN ")) {
                    String[] p = line.split(" ");
                    run = new long[] {Long.parseLong(p[1]), Long.parseLong(p[2]), Long.parseLong(p[3]), Long.parseLong(p[4])};
                    rules = rules(p);
                } else if (line.startsWith("FAULT ")) {
                    String[] p = line.split(" ", 6);
                    faults.add(new Fault(FaultKind.fromId(p[1]), Integer.parseInt(p[2]), Long.parseLong(p[3]), Long.parseLong(p[4]), p.length > 5 ? p[5] : p[1]));
                } else if (line.startsWith("FENCED ")) {
                    String[] p = line.split(" ");
                    fenced.add(new FencedWrite(Long.parseLong(p[1]), Integer.parseInt(p[2]), Long.parseLong(p[3])));
                } else if (!line.isBlank()) {
                    throw new IllegalArgumentException("unknown line");
                }
            } catch (RuntimeException e) {
                throw new IllegalArgumentException(file + " line " + (i + 1) + ": cannot read '" + line + "': " + e.getMessage(), e);
            }
        }
        if (run == null) {
            throw new IllegalArgumentException(file + " has no RUN line: not a history written by distlock check");
        }
        return new History(events, faults, run[0], run[1], run[2], run[3], fenced, rules);
    }

    /** Reads the rules that follow the four numbers of a RUN line. */
    private static History.Rules rules(String[] run) {
        History.Rules rules = History.Rules.DEFAULT;
        for (int i = 5; i < run.length; i++) {
            String part = run[i];
            if (part.startsWith("losing=")) {
                rules = rules.withLockLosingFaults(faultKinds(part.substring("losing=".length())));
            } else if (part.startsWith("requeue=")) {
                rules = rules.withRequeueFaults(faultKinds(part.substring("requeue=".length())));
            } else if (part.startsWith("wait=")) {
                rules = rules.withWait(Long.parseLong(part.substring("wait=".length())));
            } else if (part.startsWith("order=")) {
                rules = rules.withOrderBound(Long.parseLong(part.substring("order=".length())));
            } else if (i == 5) {
                rules = rules.withSharedLimit(Integer.parseInt(part));
            } else {
                throw new IllegalArgumentException("unknown RUN field '" + part + "'");
            }
        }
        return rules;
    }

    private static java.util.Set<FaultKind> faultKinds(String ids) {
        java.util.Set<FaultKind> kinds = java.util.EnumSet.noneOf(FaultKind.class);
        for (String id : ids.split(",")) {
            kinds.add(FaultKind.fromId(id));
        }
        return kinds;
    }
}
