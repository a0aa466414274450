package io.distlock.checker;

import static io.distlock.checker.Operation.ABORT;
import static io.distlock.checker.Operation.ACQUIRE;
import static io.distlock.checker.Operation.FENCED_WRITE;
import static io.distlock.checker.Operation.LOST;
import static io.distlock.checker.Operation.READ;
import static io.distlock.checker.Operation.RELEASE;
import static io.distlock.checker.Operation.WRITE;

import io.distlock.checker.CheckReport.Result;
import io.distlock.checker.Event.Type;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Checks a recorded {@link History} against the {@link Invariant}s. Pure: no servers, no clocks.
 */
public final class Checker {
    /** Counterexamples listed per invariant (all are counted). */
    public static final int MAX_EXAMPLES = 10;

    private final History history;
    private final Set<Invariant> claimed;
    private final long livenessBoundNanos;

    /**
     * @param history the history to check
     * @param claimed the invariants the lock promises; only these decide {@link CheckReport#passed()}
     * @param livenessBoundNanos how long after lease time a healed fault may go without any acquisition
     */
    /**
     * Note of a fenced write a worker did not send because its lease was no longer valid (a FAIL that the
     * store never saw).
     */
    public static final String NOT_SENT = "not sent";
    /**
     * Note of a fenced write sent without checking the lease, by a holder that found it had been frozen:
     * only the store's fencing can stop it, so the rule "no write after a loss notice" does not apply to
     * it; the store's token order still does.
     */
    public static final String UNCHECKED = "unchecked";
    /**
     * Note of an acquisition (its invoke and its ok) of a shared hold: a read lock or a semaphore permit.
     * Shared holds may overlap each other (up to {@link History#sharedLimit()}), never an exclusive hold.
     */
    public static final String SHARED = "shared";

    public Checker(History history, Set<Invariant> claimed, long livenessBoundNanos) {
        this.history = history;
        this.claimed = Set.copyOf(claimed);
        this.livenessBoundNanos = livenessBoundNanos;
    }

    /** Runs every check. */
    public CheckReport check() {
        List<Hold> holds = holds();
        List<Hold[]> overlaps = overlaps(holds, history.sharedLimit());
        List<Result> results = List.of(tokens(), fencedWrites(), lostUpdates(), overlap(overlaps), liveness());
        return new CheckReport(results, holds, overlaps.subList(0, Math.min(overlaps.size(), MAX_EXAMPLES * 10)), stats());
    }

    private CheckReport.Stats stats() {
        Set<Integer> processes = new HashSet<>();
        int acquisitions = 0;
        int accepted = 0;
        int rejected = 0;
        int increments = 0;
        for (Event e : history.events()) {
            processes.add(e.process());
            if (e.is(Type.OK, ACQUIRE)) {
                acquisitions++;
            } else if (e.is(Type.OK, FENCED_WRITE)) {
                accepted++;
            } else if (e.is(Type.FAIL, FENCED_WRITE) && !e.note().startsWith(NOT_SENT)) {
                rejected++;
            } else if (e.is(Type.OK, WRITE)) {
                increments++;
            }
        }
        return new CheckReport.Stats(acquisitions, accepted, rejected, increments, history.finalRegister(), processes.size(),
                history.faults().size());
    }

    private Result result(Invariant invariant, int violations, String summary, List<String> examples) {
        return new Result(invariant, claimed.contains(invariant), violations == 0, violations, summary,
                List.copyOf(examples.subList(0, Math.min(examples.size(), MAX_EXAMPLES))));
    }

    /** (a) real-time order of tokens, and uniqueness. */
    private Result tokens() {
        record Acquired(Event invoke, Event ok) {}
        Map<Integer, Event> pendingInvoke = new HashMap<>();
        List<Acquired> acquired = new ArrayList<>();
        for (Event e : history.events()) {
            if (e.is(Type.INVOKE, ACQUIRE)) {
                pendingInvoke.put(e.process(), e);
            } else if (e.is(Type.OK, ACQUIRE)) {
                Event invoke = pendingInvoke.remove(e.process());
                acquired.add(new Acquired(invoke == null ? e : invoke, e));
            }
        }
        if (acquired.stream().allMatch(a -> a.ok().token() == 0)) {
            return result(Invariant.TOKENS, acquired.isEmpty() ? 0 : 1, acquired.isEmpty()
                    ? "no acquisitions" : "this lock issues no fencing tokens", List.of());
        }
        List<String> examples = new ArrayList<>();
        int violations = 0;
        Map<Long, Event> byToken = new HashMap<>();
        for (Acquired a : acquired) {
            Event earlier = byToken.putIfAbsent(a.ok().token(), a.ok());
            if (earlier != null) {
                violations++;
                examples.add("token " + a.ok().token() + " issued twice:\n" + describe(earlier) + "\n" + describe(a.ok()));
            }
        }
        // Every acquisition that completed before another was invoked must have the lower token.
        List<Acquired> byOk = new ArrayList<>(acquired);
        byOk.sort(Comparator.comparingLong(a -> a.ok().nanos() - history.startNanos()));
        List<Acquired> byInvoke = new ArrayList<>(acquired);
        byInvoke.sort(Comparator.comparingLong(a -> a.invoke().nanos() - history.startNanos()));
        int next = 0;
        Acquired highest = null;
        for (Acquired a : byInvoke) {
            while (next < byOk.size() && byOk.get(next).ok().nanos() - a.invoke().nanos() < 0) {
                Acquired done = byOk.get(next++);
                if (highest == null || done.ok().token() > highest.ok().token()) {
                    highest = done;
                }
            }
            if (highest != null && highest != a && a.ok().token() <= highest.ok().token()) {
                violations++;
                examples.add("token " + a.ok().token() + " was issued after token " + highest.ok().token() + " had been granted:\n"
                        + describe(highest.ok()) + "\n" + describe(a.invoke()) + "\n" + describe(a.ok()));
            }
        }
        String summary = violations == 0
                ? acquired.size() + " acquisitions, tokens increase in real-time order, none issued twice"
                : violations + " token violations in " + acquired.size() + " acquisitions";
        return result(Invariant.TOKENS, violations, summary, examples);
    }

    /** (b) the fenced store's order, and no accepted write from a holder that had been told of its loss. */
    private Result fencedWrites() {
        List<String> examples = new ArrayList<>();
        int violations = 0;
        List<FencedWrite> log = history.fencedLog();
        for (int i = 1; i < log.size(); i++) {
            if (log.get(i).token() < log.get(i - 1).token()) {
                violations++;
                examples.add("the store accepted token " + log.get(i).token() + " (process " + log.get(i).process()
                        + ") after token " + log.get(i - 1).token() + " (process " + log.get(i - 1).process() + ")");
            }
        }
        Map<String, Event> lostAt = new HashMap<>();
        Map<Integer, Event> pendingWrite = new HashMap<>();
        int accepted = 0;
        for (Event e : history.events()) {
            if (e.is(Type.INFO, LOST)) {
                lostAt.putIfAbsent(key(e.process(), e.token()), e);
            } else if (e.is(Type.INVOKE, FENCED_WRITE)) {
                pendingWrite.put(e.process(), e);
            } else if (e.is(Type.OK, FENCED_WRITE)) {
                accepted++;
                Event invoke = pendingWrite.remove(e.process());
                Event lost = lostAt.get(key(e.process(), e.token()));
                boolean unchecked = invoke != null && invoke.note().startsWith(UNCHECKED);
                if (invoke != null && lost != null && lost.nanos() - invoke.nanos() < 0 && !unchecked) {
                    violations++;
                    examples.add("a holder wrote after it was told its lease was lost:\n" + describe(lost) + "\n"
                            + describe(invoke) + "\n" + describe(e));
                }
            }
        }
        if (accepted > log.size()) {
            violations++;
            examples.add(accepted + " fenced writes were acknowledged as accepted but the store holds only " + log.size());
        }
        String summary = violations == 0
                ? log.size() + " accepted writes in non-decreasing token order"
                : violations + " violations in " + log.size() + " accepted writes";
        return result(Invariant.FENCED_WRITES, violations, summary, examples);
    }

    /** (c) acknowledged increments of the unfenced register that did not survive. */
    private Result lostUpdates() {
        Map<Long, Event> written = new HashMap<>();
        List<String> examples = new ArrayList<>();
        int duplicates = 0;
        int acknowledged = 0;
        for (Event e : history.events()) {
            if (e.is(Type.OK, WRITE)) {
                acknowledged++;
                Event earlier = written.putIfAbsent(e.value(), e);
                if (earlier != null) {
                    duplicates++;
                    examples.add("two holders both wrote " + e.value() + " (both read " + (e.value() - 1) + "): one increment is lost\n"
                            + describe(earlier) + "\n" + describe(e) + overlappingFaults(earlier.nanos(), e.nanos()));
                }
            }
        }
        Map<String, Integer> near = new TreeMap<>();
        Map<Long, Event> first = new HashMap<>();
        for (Event e : history.events()) {
            if (e.is(Type.OK, WRITE)) {
                Event earlier = first.putIfAbsent(e.value(), e);
                if (earlier != null) {
                    faultKindsNear(earlier.nanos(), e.nanos()).forEach(kind -> near.merge(kind, 1, Integer::sum));
                }
            }
        }
        long missing = Math.max(0, acknowledged - history.finalRegister());
        int violations = (int) Math.max(duplicates, missing);
        if (missing > 0 && duplicates == 0) {
            examples.add(acknowledged + " increments were acknowledged but the register ends at " + history.finalRegister()
                    + " (it was reset, e.g. by a server restart)");
        }
        String summary = violations == 0
                ? acknowledged + " acknowledged increments, register ends at " + history.finalRegister()
                : String.format(Locale.ROOT, "%d of %d acknowledged increments lost (register ends at %d)", violations,
                        acknowledged, history.finalRegister()) + (near.isEmpty() ? "" : " " + near(near));
        return result(Invariant.LOST_UPDATES, violations, summary, examples);
    }

    /** (d) overlapping holds of different processes. */
    private Result overlap(List<Hold[]> overlaps) {
        List<String> examples = new ArrayList<>();
        for (Hold[] pair : overlaps) {
            if (examples.size() >= MAX_EXAMPLES) {
                break;
            }
            if (pair.length > 2) {
                examples.add(tooManyShared(pair));
                continue;
            }
            long overlapNanos = Math.min(pair[0].endNanos() - pair[1].startNanos(), pair[1].endNanos() - pair[1].startNanos());
            examples.add(String.format(Locale.ROOT, "processes %d and %d both held the lock for %.1f ms:%n%s%n%s%s",
                    pair[0].process(), pair[1].process(), overlapNanos / 1e6, describe(pair[0]), describe(pair[1]),
                    overlappingFaults(pair[1].startNanos(), pair[1].startNanos() + overlapNanos)));
        }
        Map<String, Integer> near = new TreeMap<>();
        for (Hold[] pair : overlaps) {
            for (String kind : faultKindsNear(pair[1].startNanos(), Math.min(pair[0].endNanos(), pair[1].endNanos()))) {
                near.merge(kind, 1, Integer::sum);
            }
        }
        long crowds = overlaps.stream().filter(pair -> pair.length > 2).count();
        String summary = overlaps.isEmpty() ? "no overlapping holds"
                : crowds == 0 ? overlaps.size() + " overlapping pairs of holds " + near(near)
                : (overlaps.size() == crowds ? "" : (overlaps.size() - crowds) + " overlapping pairs of holds, ") + crowds
                        + (crowds == 1 ? " time" : " times") + " more than " + history.sharedLimit()
                        + " shared holds at once " + near(near);
        return result(Invariant.OVERLAP, overlaps.size(), summary, examples);
    }

    /** (e) an acquisition within lease + bound after each healed fault. */
    private Result liveness() {
        TreeSet<Long> acquiredAt = new TreeSet<>();
        for (Event e : history.events()) {
            if (e.is(Type.OK, ACQUIRE)) {
                acquiredAt.add(e.nanos() - history.startNanos());
            }
        }
        long window = history.leaseNanos() + livenessBoundNanos;
        List<String> examples = new ArrayList<>();
        int violations = 0;
        int checked = 0;
        for (Fault fault : history.faults()) {
            long healed = fault.endNanos() - history.startNanos();
            if (healed + window > history.endNanos() - history.startNanos()) {
                continue; // the run ended too soon after this fault to judge
            }
            checked++;
            Long next = acquiredAt.higher(healed);
            if (next == null || next - healed > window) {
                violations++;
                examples.add(String.format(Locale.ROOT, "no acquisition within %.1f s after %s healed at %s (next: %s)",
                        window / 1e9, fault.description(), seconds(fault.endNanos()),
                        next == null ? "none" : String.format(Locale.ROOT, "%.3f s", next / 1e9)));
            }
        }
        String summary = violations == 0
                ? checked + " healed faults, each followed by an acquisition within " + String.format(Locale.ROOT, "%.1f s", window / 1e9)
                : violations + " of " + checked + " healed faults not followed by an acquisition in time";
        return result(Invariant.LIVENESS, violations, summary, examples);
    }

    /** Derives the holding intervals. */
    private List<Hold> holds() {
        Map<Integer, Event> open = new HashMap<>();
        List<Hold> holds = new ArrayList<>();
        Map<Integer, Long> killedAt = new HashMap<>();
        for (Fault fault : history.faults()) {
            if (fault.kind() == FaultKind.KILL && fault.process() >= 0) {
                killedAt.put(fault.process(), fault.startNanos());
            }
        }
        for (Event e : history.events()) {
            Event acquired = open.get(e.process());
            if (e.is(Type.OK, ACQUIRE)) {
                if (acquired != null) {
                    holds.add(new Hold(e.process(), acquired.token(), acquired.nanos(), e.nanos(), "reacquire", isShared(acquired)));
                }
                open.put(e.process(), e);
            } else if (acquired != null && (e.is(Type.INVOKE, RELEASE) || e.is(Type.INFO, LOST) || e.is(Type.INFO, ABORT))
                    && e.token() == acquired.token()) {
                holds.add(new Hold(e.process(), acquired.token(), acquired.nanos(), e.nanos(), e.op().id(), isShared(acquired)));
                open.remove(e.process());
            }
        }
        open.forEach((process, acquired) -> {
            Long killed = killedAt.get(process);
            boolean wasKilled = killed != null && killed - acquired.nanos() >= 0;
            holds.add(new Hold(process, acquired.token(), acquired.nanos(), wasKilled ? killed : history.endNanos(),
                    wasKilled ? "killed" : "end-of-run", isShared(acquired)));
        });
        holds.sort(Comparator.comparingLong(h -> h.startNanos() - history.startNanos()));
        return holds;
    }

    /**
     * Returns the holds that were held together against the rules: pairs where one of the two is exclusive,
     * and, each time a shared hold begins while {@code sharedLimit} others are held, those and the new one
     * (an array longer than two).
     */
    private static List<Hold[]> overlaps(List<Hold> holds, int sharedLimit) {
        List<Hold[]> found = new ArrayList<>();
        List<Hold> active = new ArrayList<>();
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
                    found.add(new Hold[] {a, hold});
                }
            }
            if (hold.shared() && sharing.size() >= sharedLimit) {
                sharing.add(hold);
                found.add(sharing.toArray(Hold[]::new));
            }
            active.add(hold);
        }
        return found;
    }

    private String tooManyShared(Hold[] crowd) {
        Hold last = crowd[crowd.length - 1];
        long until = last.endNanos();
        StringBuilder text = new StringBuilder(String.format(Locale.ROOT, "%d processes held shared holds at once (at most %d may):",
                crowd.length, history.sharedLimit()));
        for (Hold hold : crowd) {
            text.append(System.lineSeparator()).append(describe(hold));
            until = Math.min(until, hold.endNanos());
        }
        return text + overlappingFaults(last.startNanos(), until);
    }

    /** The kinds of the faults around an interval (from three leases before it), or "no fault". */
    private Set<String> faultKindsNear(long from, long to) {
        Set<String> kinds = new TreeSet<>();
        history.faultsNear(from, to).forEach(fault -> kinds.add(fault.kind().id()));
        if (kinds.isEmpty()) {
            kinds.add("no fault");
        }
        return kinds;
    }

    private static String near(Map<String, Integer> counts) {
        List<String> parts = new ArrayList<>();
        counts.forEach((kind, count) -> parts.add(kind + " " + count));
        return "(near: " + String.join(", ", parts) + ")";
    }

    private String overlappingFaults(long from, long to) {
        List<String> during = history.faultsNear(from, to).stream()
                .map(fault -> fault.description() + " at " + seconds(fault.startNanos())).toList();
        return during.isEmpty() ? "\n(no fault nearby)" : "\n(nearby faults: " + String.join("; ", during) + ")";
    }

    private static boolean isShared(Event acquired) {
        return acquired.note().equals(SHARED);
    }

    private static String key(int process, long token) {
        return process + ":" + token;
    }

    private String seconds(long nanos) {
        return String.format(Locale.ROOT, "%.3f s", (nanos - history.startNanos()) / 1e9);
    }

    private String describe(Event e) {
        return String.format(Locale.ROOT, "  %s  process %d %s %s%s%s%s", seconds(e.nanos()), e.process(),
                e.type().name().toLowerCase(Locale.ROOT), e.op().id(), e.token() != 0 ? " token=" + e.token() : "",
                e.value() != 0 || e.op().isWrite() || e.op() == READ ? " value=" + e.value() : "",
                e.note().isEmpty() ? "" : " (" + e.note() + ")");
    }

    private String describe(Hold h) {
        return String.format(Locale.ROOT, "  process %d held%s%s from %s to %s (ended by %s)", h.process(),
                h.shared() ? " shared" : "", h.token() != 0 ? " token " + h.token() : "", seconds(h.startNanos()), seconds(h.endNanos()), h.endedBy());
    }
}
