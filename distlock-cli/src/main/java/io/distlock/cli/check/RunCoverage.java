package io.distlock.cli.check;

import io.distlock.checker.CheckReport;
import io.distlock.checker.Fault;
import io.distlock.checker.FaultKind;
import io.distlock.checker.History;
import io.distlock.checker.Hold;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Whether a run exercised what it announced, so that an "OK" means something: a check whose faults hit nobody
 * holding the lock, or came too late to be judged, or whose processes never had to wait for each other, proves
 * nothing about them and must not pass.
 *
 * @param problems why the run is inconclusive, each in one sentence; empty when it is conclusive
 */
record RunCoverage(List<String> problems) {
    /** Fewer acquisitions than this prove nothing about exclusion. */
    static final int MIN_ACQUISITIONS = 100;
    /** Fewer acquisitions that had to wait for another process's hold than this prove nothing about handing the lock on. */
    static final int MIN_WAITS = 10;

    RunCoverage {
        problems = List.copyOf(problems);
    }

    /**
     * Judges {@code history} (with the holds {@code report} derived from it): at least {@value #MIN_ACQUISITIONS}
     * acquisitions by at least two processes; at least {@value #MIN_WAITS} acquisitions, by two processes or more,
     * that waited for another process's hold to end; and for every fault kind of {@code announced}, at least one
     * fault that hit a holder (a client fault: its process held the lock; a server fault: someone held it) and whose
     * recovery liveness judged ({@link CheckReport#judgedFaults()}). A replay passes {@code announced} empty: the
     * faults chosen for the recorded run are not known.
     */
    static RunCoverage of(History history, CheckReport report, List<FaultKind> announced) {
        List<String> problems = new ArrayList<>();
        List<Hold> holds = report.holds();
        long acquirers = holds.stream().mapToInt(Hold::process).distinct().count();
        if (holds.size() < MIN_ACQUISITIONS) {
            problems.add("only " + holds.size() + " acquisitions completed (at least " + MIN_ACQUISITIONS + " are needed to "
                    + "judge exclusion): the servers or the clients were too slow or the run too short");
        } else if (acquirers < 2) {
            problems.add("every acquisition was made by one process, so no two processes ever competed for the lock");
        } else {
            Waits waits = waits(holds, history.sharedLimit());
            if (waits.count() < MIN_WAITS || waits.processes() < 2) {
                problems.add("only " + waits.count() + " acquisitions (by " + waits.processes() + " processes) waited for another "
                        + "process's hold to end (at least " + MIN_WAITS + ", by two processes, are needed to judge how the lock is "
                        + "handed on): use more processes or fewer permits");
            }
        }
        problems.addAll(faultProblems(history, report, announced));
        return new RunCoverage(problems);
    }

    private static List<String> faultProblems(History history, CheckReport report, List<FaultKind> announced) {
        Set<FaultKind> injected = history.faults().stream().map(Fault::kind).collect(Collectors.toSet());
        List<String> missing = announced.stream().filter(kind -> !injected.contains(kind)).map(FaultKind::id).toList();
        List<String> problems = new ArrayList<>();
        String rotation = " (of " + announced.size() + " announced; faults are injected in rotation, one every few seconds, while "
                + "enough of the run is left to see the system recover): run longer, or name fewer with --faults";
        if (!missing.isEmpty()) {
            problems.add((missing.size() == announced.size() ? "no fault was injected" : "fault kinds never injected: "
                    + String.join(", ", missing)) + rotation);
        }
        Map<FaultKind, int[]> tally = new EnumMap<>(FaultKind.class); // injected, hit a holder, hit and judged
        Set<Fault> judged = new HashSet<>(report.judgedFaults());
        for (Fault fault : history.faults()) {
            int[] counts = tally.computeIfAbsent(fault.kind(), kind -> new int[3]);
            counts[0]++;
            if (hitHolder(fault, report.holds())) {
                counts[1]++;
                if (judged.contains(fault)) {
                    counts[2]++;
                }
            }
        }
        List<String> unjudged = new ArrayList<>();
        for (FaultKind kind : announced) {
            int[] counts = tally.get(kind);
            if (counts != null && counts[2] == 0) {
                unjudged.add(kind.id() + " (" + counts[0] + " injected, " + counts[1] + " on a holder, none of those judged)");
            }
        }
        if (!unjudged.isEmpty()) {
            problems.add("fault kinds that never hit a holder in a way liveness could judge (the run ended before recovery): "
                    + String.join(", ", unjudged) + rotation);
        }
        return problems;
    }

    /**
     * A client fault hit a holder if its process (one of its threads) held the lock when it began; a server fault, if
     * anyone did.
     */
    private static boolean hitHolder(Fault fault, List<Hold> holds) {
        return holds.stream().anyMatch(h -> (!fault.kind().hitsClient() || History.clientOf(h.process()) == fault.process())
                && fault.startNanos() - h.startNanos() >= 0 && h.endNanos() - fault.startNanos() >= 0);
    }

    private record Waits(int count, int processes) {}

    /**
     * Counts acquisitions that, at some moment between their invoke and their grant, found the lock held by other
     * processes in a way they could not share (an exclusive hold; a shared one for an exclusive acquire;
     * {@code sharedLimit} shared ones for a shared acquire) and were granted only after one of those holds ended.
     * Judged at the invoke and at every grant to someone else while the acquisition waited, not at the invoke alone: a
     * semaphore's holder releases its permit and asks again at once, so its new acquire finds a permit free, and it
     * waits because the permit went to an earlier waiter and the others then filled up (seen in a ZooKeeper semaphore
     * run of ten processes on two permits: both held 22 s of 40, yet only 6 of 705 acquisitions found both held when
     * invoked).
     */
    private static Waits waits(List<Hold> holds, int sharedLimit) {
        record Point(long nanos, int order, Hold hold) {}
        List<Point> points = new ArrayList<>();
        for (Hold h : holds) {
            points.add(new Point(h.startNanos(), 1, h));
            points.add(new Point(h.endNanos(), 0, h));
            points.add(new Point(h.invokeNanos(), 2, h));
        }
        long origin = holds.isEmpty() ? 0 : holds.get(0).startNanos();
        points.sort(Comparator.comparingLong((Point p) -> p.nanos() - origin).thenComparingInt(Point::order));
        Set<Hold> active = new HashSet<>();
        Set<Hold> pending = new LinkedHashSet<>(); // invoked, not yet granted, not yet counted
        int count = 0;
        Set<Integer> waiting = new HashSet<>();
        for (Point point : points) {
            Hold h = point.hold();
            switch (point.order()) {
                case 0 -> active.remove(h);
                case 1 -> {
                    pending.remove(h);
                    active.add(h);
                }
                default -> pending.add(h);
            }
            if (point.order() == 0) {
                continue; // a hold that ends blocks nobody new
            }
            for (Iterator<Hold> it = pending.iterator(); it.hasNext(); ) {
                Hold w = it.next();
                if (blockedByOthers(w, active, sharedLimit)) {
                    it.remove();
                    count++;
                    waiting.add(w.process());
                }
            }
        }
        return new Waits(count, waiting.size());
    }

    /**
     * Whether the holds of other processes in {@code active} keep {@code waiter} out, and it was granted only after one
     * of them ended.
     */
    private static boolean blockedByOthers(Hold waiter, Set<Hold> active, int sharedLimit) {
        List<Hold> others = active.stream().filter(g -> g.process() != waiter.process()).toList();
        long shared = others.stream().filter(Hold::shared).count();
        boolean blocked = waiter.shared() ? others.size() > shared || shared >= sharedLimit : !others.isEmpty();
        return blocked && others.stream().anyMatch(g -> waiter.startNanos() - g.endNanos() >= 0);
    }

    /** Returns whether the run exercised everything it announced. */
    boolean conclusive() {
        return problems.isEmpty();
    }
}
