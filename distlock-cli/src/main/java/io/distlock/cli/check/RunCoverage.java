package io.distlock.cli.check;

import io.distlock.checker.Event;
import io.distlock.checker.Fault;
import io.distlock.checker.FaultKind;
import io.distlock.checker.History;
import io.distlock.checker.Operation;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Whether a run exercised what it announced, so that an "OK" means something: a check that injected
 * none of its faults, or whose processes hardly ever acquired, proves nothing and must not pass.
 *
 * @param problems why the run is inconclusive, each in one sentence; empty when it is conclusive
 */
record RunCoverage(List<String> problems) {
    /** Fewer acquisitions than this prove nothing about exclusion. */
    static final int MIN_ACQUISITIONS = 20;

    RunCoverage {
        problems = List.copyOf(problems);
    }

    /**
     * Judges {@code history}: at least {@value #MIN_ACQUISITIONS} acquisitions by at least two processes
     * (otherwise no two ever competed), and every fault kind of {@code announced} injected at least once.
     * A replay passes {@code announced} empty: the faults chosen for the recorded run are not known.
     */
    static RunCoverage of(History history, List<FaultKind> announced) {
        List<String> problems = new ArrayList<>();
        List<Event> acquisitions = history.events().stream().filter(e -> e.is(Event.Type.OK, Operation.ACQUIRE)).toList();
        long acquirers = acquisitions.stream().mapToInt(Event::process).distinct().count();
        if (acquisitions.size() < MIN_ACQUISITIONS) {
            problems.add("only " + acquisitions.size() + " acquisitions completed (at least " + MIN_ACQUISITIONS + " are needed to "
                    + "judge exclusion): the servers or the clients were too slow or the run too short");
        } else if (acquirers < 2) {
            problems.add("every acquisition was made by one process, so no two processes ever competed for the lock");
        }
        Set<FaultKind> injected = history.faults().stream().map(Fault::kind).collect(Collectors.toSet());
        List<String> missing = announced.stream().filter(kind -> !injected.contains(kind)).map(FaultKind::id).toList();
        if (!missing.isEmpty()) {
            problems.add((missing.size() == announced.size() ? "no fault was injected" : "fault kinds never injected: "
                    + String.join(", ", missing)) + " (of " + announced.size() + " announced; faults are injected in rotation, "
                    + "one every few seconds, while enough of the run is left to see the system recover): run longer, or "
                    + "name fewer with --faults");
        }
        return new RunCoverage(problems);
    }

    /** Returns whether the run exercised everything it announced. */
    boolean conclusive() {
        return problems.isEmpty();
    }
}
