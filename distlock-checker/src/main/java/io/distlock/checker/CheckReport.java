package io.distlock.checker;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The checker's verdict: per invariant, whether the lock claims it, whether it held, and the events
 * that show a violation.
 *
 * @param results one per invariant, in {@link Invariant} order
 * @param holds the holding intervals the checker derived (for the timeline)
 * @param overlaps holds held together against the lock's rules, judged (for the timeline): every violation first, then
 *     allowed ones, at most {@link Checker#MAX_EXAMPLES} * 10 in all, in time order
 * @param judgedFaults the faults whose recovery the liveness invariant judged (an acquisition came in time, or the time
 *     allowed for one ended before the run did)
 * @param stats counts for the summary line
 */
public record CheckReport(List<Result> results, List<Hold> holds, List<Overlap> overlaps, List<Fault> judgedFaults, Stats stats) {

    /**
     * One invariant's outcome.
     *
     * @param invariant the invariant
     * @param claimed whether the checked lock promises it (only claimed invariants decide the exit code)
     * @param holds whether the history satisfies it
     * @param violations how many violations were found
     * @param summary one line
     * @param counterexamples the first violations, each with the exact events
     */
    public record Result(Invariant invariant, boolean claimed, boolean holds, int violations, String summary,
            List<String> counterexamples) {
        /** Returns {@code ok}, {@code VIOLATED} (a claimed invariant) or {@code violated (not claimed)}. */
        public String outcome() {
            return holds ? "ok" : claimed ? "VIOLATED" : "violated (not claimed)";
        }
    }

    /**
     * Counts of the history.
     *
     * @param acquisitions completed acquisitions
     * @param acceptedFencedWrites fenced writes the store accepted
     * @param rejectedFencedWrites fenced writes the store rejected (a higher token had written)
     * @param acknowledgedIncrements acknowledged unfenced writes
     * @param finalRegister the register's final value
     * @param processes distinct process ids
     * @param faults injected faults
     */
    public record Stats(int acquisitions, int acceptedFencedWrites, int rejectedFencedWrites, int acknowledgedIncrements,
            long finalRegister, int processes, int faults) {}

    /** True when every claimed invariant holds. */
    public boolean passed() {
        return results.stream().allMatch(r -> !r.claimed() || r.holds());
    }

    /** Returns the result of one invariant. */
    public Result result(Invariant invariant) {
        return results.stream().filter(r -> r.invariant() == invariant).findFirst().orElseThrow();
    }

    /** Returns the claimed invariants. */
    public Set<Invariant> claimed() {
        return Set.copyOf(results.stream().filter(Result::claimed).map(Result::invariant).toList());
    }

    /** Returns the text report: one line per invariant, then the counterexamples. */
    public String toText() {
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "%d processes, %d acquisitions, %d fenced writes accepted and %d rejected by the store, "
                + "%d acknowledged increments (register ends at %d), %d faults%n", stats.processes(), stats.acquisitions(),
                stats.acceptedFencedWrites(), stats.rejectedFencedWrites(), stats.acknowledgedIncrements(),
                stats.finalRegister(), stats.faults()));
        out.append(String.format(Locale.ROOT, "%-14s %-8s %-22s %s%n", "invariant", "claimed", "result", "details"));
        for (Result r : results) {
            out.append(String.format(Locale.ROOT, "%-14s %-8s %-22s %s%n", r.invariant().id(), r.claimed() ? "yes" : "no",
                    r.outcome(), r.summary()));
        }
        List<String> lines = new ArrayList<>();
        for (Result r : results) {
            if (!r.counterexamples().isEmpty()) {
                lines.add(r.invariant().id() + (r.claimed() ? " (VIOLATION)" : " (not claimed by this lock)") + ":");
                r.counterexamples().forEach(example -> lines.add("  " + example.replace("\n", "\n  ")));
            }
        }
        if (!lines.isEmpty()) {
            out.append(System.lineSeparator()).append(String.join(System.lineSeparator(), lines)).append(System.lineSeparator());
        }
        return out.toString();
    }
}
