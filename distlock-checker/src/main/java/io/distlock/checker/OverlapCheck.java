package io.distlock.checker;

import io.distlock.checker.CheckReport.Result;
import io.distlock.checker.Overlap.Excuse;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/** The {@link Invariant#OVERLAP} invariant: mutual exclusion (and the permit count), judged against what the history shows. */
final class OverlapCheck {
    /*
     * First every overlap as the holders believed it (the timeline shows them all), then each is judged.
     * A lease lock promises exclusion only while a holder's lease is valid, so an overlap is allowed when, by
     * the time the last of its holders got the lock, one of the holders involved was already past the lease
     * deadline it had recorded (or a crowd of shared holds had no more than the permit count of valid leases
     * left): that holder was paused or slow to notice, and its isValid() was already false. An overlap is also
     * allowed across a fault after which the deployment does not promise its locks (History.Rules), if the
     * fault was active at some time from the first holder's acquire to the last holder's grant. Anything else
     * is a violation, with or without faults nearby: a hold recorded no lease end only where the lock has no
     * leases (the textbook locks), and those are never excused by one.
     */
    private final History history;
    private final EventText text;

    OverlapCheck(History history) {
        this.history = history;
        this.text = new EventText(history);
    }

    /** Returns every overlap of {@code holds}, judged, in the order the last hold of each began. */
    List<Overlap> overlaps(List<Hold> holds) {
        List<Overlap> found = new ArrayList<>();
        List<Hold> active = new ArrayList<>();
        int limit = history.sharedLimit();
        for (Hold hold : holds) {
            active.removeIf(a -> a.endNanos() - hold.startNanos() <= 0);
            List<Hold> sharing = new ArrayList<>();
            for (Hold a : active) {
                if (a.process() == hold.process()) {
                    continue;
                }
                if (a.shared() && hold.shared()) {
                    sharing.add(a);
                } else {
                    found.add(judge(List.of(a, hold), 1));
                }
            }
            if (hold.shared() && sharing.size() >= limit) {
                sharing.add(hold);
                found.add(judge(sharing, limit));
            }
            active.add(hold);
        }
        return found;
    }

    /** Judges holds that were held together when the last of them began, of which at most {@code allowed} may be. */
    private Overlap judge(List<Hold> together, int allowed) {
        Hold last = together.get(together.size() - 1);
        long valid = together.stream().filter(h -> !h.leaseOverAt(last.startNanos())).count();
        if (valid <= allowed) {
            return new Overlap(together, Excuse.PAST_LEASE, null);
        }
        long firstInvoke = together.stream().mapToLong(Hold::invokeNanos).reduce((a, b) -> b - a < 0 ? b : a).orElseThrow();
        for (Fault fault : history.faultsBetween(firstInvoke, last.startNanos())) {
            if (history.rules().lockLosingFaults().contains(fault.kind())) {
                return new Overlap(together, Excuse.LOCK_LOSING_FAULT, fault);
            }
        }
        return new Overlap(together, Excuse.NONE, null);
    }

    Result result(List<Overlap> overlaps, boolean claimed) {
        List<String> examples = new ArrayList<>();
        List<Overlap> violations = overlaps.stream().filter(Overlap::violation).toList();
        for (Overlap overlap : violations.subList(0, Math.min(violations.size(), Checker.MAX_EXAMPLES))) {
            examples.add(describe(overlap));
        }
        return new Result(Invariant.OVERLAP, claimed, violations.isEmpty(), violations.size(), summary(overlaps, violations),
                examples);
    }

    private String summary(List<Overlap> overlaps, List<Overlap> violations) {
        if (overlaps.isEmpty()) {
            return "no overlapping holds";
        }
        String noun = overlaps.stream().allMatch(o -> o.holds().size() == 2) ? "overlapping pair" : "overlap";
        String what = overlaps.size() + " " + noun + (overlaps.size() == 1 ? "" : "s")
                + (noun.equals("overlap") ? " (pairs, or more shared holds than the " + history.sharedLimit() + " permits)" : "");
        Map<Excuse, Integer> byExcuse = new EnumMap<>(Excuse.class);
        overlaps.forEach(o -> byExcuse.merge(o.excuse(), 1, Integer::sum));
        String allowed = byExcuse.entrySet().stream().filter(e -> e.getKey() != Excuse.NONE)
                .map(e -> e.getValue() + " allowed: " + e.getKey().description()).collect(Collectors.joining("; "));
        if (violations.isEmpty()) {
            return what + ", all allowed (" + allowed + ")";
        }
        Map<String, Integer> near = new TreeMap<>();
        violations.forEach(o -> text.faultKindsNear(o.startNanos(), o.endNanos()).forEach(kind -> near.merge(kind, 1, Integer::sum)));
        return violations.size() + " of " + what + (violations.size() == 1 ? " violates" : " violate") + " exclusion "
                + EventText.near(near) + (allowed.isEmpty() ? "" : "; " + allowed);
    }

    private String describe(Overlap overlap) {
        StringBuilder out = new StringBuilder();
        if (overlap.holds().size() == 2) {
            Hold a = overlap.holds().get(0);
            Hold b = overlap.holds().get(1);
            out.append(String.format(Locale.ROOT, "processes %d and %d both held the lock with valid leases for %.1f ms:", a.process(),
                    b.process(), (overlap.endNanos() - overlap.startNanos()) / 1e6));
        } else {
            out.append(String.format(Locale.ROOT, "%d processes held shared holds at once with valid leases (at most %d may):",
                    overlap.holds().size(), history.sharedLimit()));
        }
        overlap.holds().forEach(hold -> out.append(System.lineSeparator()).append(text.describe(hold)));
        return out + text.faultsNear(overlap.startNanos(), overlap.endNanos());
    }
}
