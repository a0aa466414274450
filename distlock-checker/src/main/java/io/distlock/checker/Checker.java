package io.distlock.checker;

import static io.distlock.checker.Operation.ACQUIRE;
import static io.distlock.checker.Operation.FENCED_WRITE;
import static io.distlock.checker.Operation.LOST;
import static io.distlock.checker.Operation.WRITE;

import io.distlock.checker.CheckReport.Result;
import io.distlock.checker.Event.Type;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Checks a recorded {@link History} against the {@link Invariant}s. Pure: no servers, no clocks. Every
 * invariant is judged on every history; the lock's claims decide which of them fail the run. The overlap
 * and order invariants live in {@link OverlapCheck} and {@link OrderCheck}; holds are derived by {@link Holds}.
 */
public final class Checker {
    /** Counterexamples listed per invariant (all are counted). */
    public static final int MAX_EXAMPLES = 10;

    private final History history;
    private final Set<Invariant> claimed;
    private final long livenessBoundNanos;
    private final EventText text;

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

    /**
     * @param history the history to check
     * @param claimed the invariants the lock promises; only these decide {@link CheckReport#passed()}, with
     *     {@link Invariant#RECORDING}, which every history must meet to be judged at all
     * @param livenessBoundNanos how long after lease time a healed fault may go without any acquisition
     */
    public Checker(History history, Set<Invariant> claimed, long livenessBoundNanos) {
        this.history = history;
        Set<Invariant> all = EnumSet.of(Invariant.RECORDING);
        all.addAll(claimed);
        this.claimed = Set.copyOf(all);
        this.livenessBoundNanos = livenessBoundNanos;
        this.text = new EventText(history);
    }

    /** Runs every check. */
    public CheckReport check() {
        List<Hold> holds = Holds.of(history);
        OverlapCheck overlapCheck = new OverlapCheck(history);
        List<Overlap> overlaps = overlapCheck.overlaps(holds);
        List<Fault> judged = new ArrayList<>();
        List<Result> results = List.of(tokens(), fencedWrites(), lostUpdates(),
                overlapCheck.result(overlaps, claimed.contains(Invariant.OVERLAP)), liveness(judged),
                new OrderCheck(history).result(claimed.contains(Invariant.ORDER)), recording());
        return new CheckReport(results, holds, shown(overlaps), judged, stats());
    }

    /** The overlaps the timeline shows: every violation first (up to the cap), then allowed ones, in time order. */
    private List<Overlap> shown(List<Overlap> overlaps) {
        int cap = MAX_EXAMPLES * 10;
        List<Overlap> shown = new ArrayList<>(overlaps.stream().filter(Overlap::violation).limit(cap).toList());
        overlaps.stream().filter(o -> !o.violation()).limit(cap - shown.size()).forEach(shown::add);
        shown.sort(Comparator.comparingLong(o -> o.startNanos() - history.startNanos()));
        return List.copyOf(shown);
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
                examples.add("token " + a.ok().token() + " issued twice:\n" + text.describe(earlier) + "\n" + text.describe(a.ok()));
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
                        + text.describe(highest.ok()) + "\n" + text.describe(a.invoke()) + "\n" + text.describe(a.ok()));
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
                    examples.add("a holder wrote after it was told its lease was lost:\n" + text.describe(lost) + "\n"
                            + text.describe(invoke) + "\n" + text.describe(e));
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

    /**
     * (g) every write in the fenced store's log has a recorded invoke of the same process and token (counted: a lock
     * without tokens writes token 0 each time). A write without one means events of that process were lost between it
     * and the history, so the other invariants judged less than what happened.
     */
    private Result recording() {
        Map<String, Integer> invoked = new HashMap<>();
        for (Event e : history.events()) {
            if (e.is(Type.INVOKE, FENCED_WRITE)) {
                invoked.merge(key(e.process(), e.token()), 1, Integer::sum);
            }
        }
        Map<Integer, List<FencedWrite>> unrecorded = new TreeMap<>();
        for (FencedWrite w : history.fencedLog()) {
            String key = key(w.process(), w.token());
            if (invoked.containsKey(key)) {
                invoked.computeIfPresent(key, (k, n) -> n == 1 ? null : n - 1); // each invoke accounts for one write
            } else {
                unrecorded.computeIfAbsent(w.process(), p -> new ArrayList<>()).add(w);
            }
        }
        int violations = unrecorded.values().stream().mapToInt(List::size).sum();
        List<String> examples = new ArrayList<>();
        unrecorded.forEach((process, writes) -> examples.add(String.format(Locale.ROOT,
                "the store accepted %d writes of process %d that the history has no invoke of (tokens %d to %d): "
                        + "that process's events were lost on their way to the history; the other invariants cannot be judged",
                writes.size(), process, writes.get(0).token(), writes.get(writes.size() - 1).token())));
        String summary = violations == 0
                ? history.fencedLog().size() + " accepted writes, each recorded as invoked by its writer"
                : violations + " accepted writes of " + unrecorded.size() + " processes missing from the history: the run cannot be judged";
        return result(Invariant.RECORDING, violations, summary, examples);
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
                            + text.describe(earlier) + "\n" + text.describe(e) + text.faultsNear(earlier.nanos(), e.nanos()));
                }
            }
        }
        Map<String, Integer> near = new TreeMap<>();
        Map<Long, Event> first = new HashMap<>();
        for (Event e : history.events()) {
            if (e.is(Type.OK, WRITE)) {
                Event earlier = first.putIfAbsent(e.value(), e);
                if (earlier != null) {
                    text.faultKindsNear(earlier.nanos(), e.nanos()).forEach(kind -> near.merge(kind, 1, Integer::sum));
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
                        acknowledged, history.finalRegister()) + (near.isEmpty() ? "" : " " + EventText.near(near));
        return result(Invariant.LOST_UPDATES, violations, summary, examples);
    }

    /**
     * (e) an acquisition within lease + bound after each healed fault. A fault is judged when an acquisition came
     * within that window, or when the window ended before the run did; adds the judged faults to {@code judged}.
     */
    private Result liveness(List<Fault> judged) {
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
            Long next = acquiredAt.higher(healed);
            boolean recovered = next != null && next - healed <= window;
            if (!recovered && healed + window > history.endNanos() - history.startNanos()) {
                continue; // no acquisition yet, and the run ended too soon after this fault to say none would come
            }
            checked++;
            judged.add(fault);
            if (!recovered) {
                violations++;
                examples.add(String.format(Locale.ROOT, "no acquisition within %.1f s after %s healed at %s (next: %s)",
                        window / 1e9, fault.description(), text.seconds(fault.endNanos()),
                        next == null ? "none" : String.format(Locale.ROOT, "%.3f s", next / 1e9)));
            }
        }
        String summary = violations == 0
                ? checked + " healed faults, each followed by an acquisition within " + String.format(Locale.ROOT, "%.1f s", window / 1e9)
                : violations + " of " + checked + " healed faults not followed by an acquisition in time";
        return result(Invariant.LIVENESS, violations, summary, examples);
    }

    private static String key(int process, long token) {
        return process + ":" + token;
    }

}
