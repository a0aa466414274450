package io.distlock.checker;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/** Writes the events, holds and faults of one history for counterexamples: times in seconds from the start of the run. */
final class EventText {
    private final History history;

    EventText(History history) {
        this.history = history;
    }

    String seconds(long nanos) {
        return String.format(Locale.ROOT, "%.3f s", (nanos - history.startNanos()) / 1e9);
    }

    String describe(Event e) {
        return String.format(Locale.ROOT, "  %s  process %d %s %s%s%s%s", seconds(e.nanos()), e.process(),
                e.type().name().toLowerCase(Locale.ROOT), e.op().id(), e.token() != 0 ? " token=" + e.token() : "",
                e.op() == Operation.LEASE ? " until " + seconds(e.value())
                        : e.value() != 0 || e.op().isWrite() || e.op() == Operation.READ ? " value=" + e.value() : "",
                e.note().isEmpty() ? "" : " (" + e.note() + ")");
    }

    String describe(Hold h) {
        return String.format(Locale.ROOT, "  process %d held%s%s from %s to %s (ended by %s; %s)", h.process(),
                h.shared() ? " shared" : "", h.token() != 0 ? " token " + h.token() : "", seconds(h.startNanos()), seconds(h.endNanos()),
                h.endedBy(), h.leaseRecorded() ? "its lease ran until " + seconds(h.leaseEndNanos()) : "no lease recorded");
    }

    /** The faults near an interval (from three leases before it), as a line to append to a counterexample. */
    String faultsNear(long from, long to) {
        List<String> during = history.faultsNear(from, to).stream()
                .map(fault -> fault.description() + " at " + seconds(fault.startNanos())).toList();
        return during.isEmpty() ? "\n(no fault nearby)" : "\n(nearby faults: " + String.join("; ", during) + ")";
    }

    /** The kinds of the faults around an interval (from three leases before it), or "no fault". */
    Set<String> faultKindsNear(long from, long to) {
        Set<String> kinds = new TreeSet<>();
        history.faultsNear(from, to).forEach(fault -> kinds.add(fault.kind().id()));
        if (kinds.isEmpty()) {
            kinds.add("no fault");
        }
        return kinds;
    }

    /** "(near: pause 3, restart 1)". */
    static String near(Map<String, Integer> counts) {
        List<String> parts = new ArrayList<>();
        counts.forEach((kind, count) -> parts.add(kind + " " + count));
        return "(near: " + String.join(", ", parts) + ")";
    }
}
