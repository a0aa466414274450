package io.distlock.cli.check;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.checker.CheckReport;
import io.distlock.checker.Checker;
import io.distlock.checker.Event;
import io.distlock.checker.Fault;
import io.distlock.checker.FaultKind;
import io.distlock.checker.History;
import io.distlock.checker.Operation;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** When a run proves nothing: too little happened, nobody waited, or its faults hit no holder or were never judged. */
class RunCoverageTest {
    private static final long MS = 1_000_000L;
    private static final long SECOND = 1000 * MS;

    /**
     * Holds of 8 ms every 10 ms, by the processes in turn. A contended acquire is invoked 5 ms into the hold before it
     * (another process's), so it waits for that hold to end; an uncontended one just after it ended.
     */
    private static List<Event> holds(int acquisitions, int processes, boolean contended) {
        List<Event> events = new ArrayList<>();
        for (int i = 0; i < acquisitions; i++) {
            long start = i * 10L;
            int process = i % processes;
            events.add(Event.of((start - (contended ? 5 : 1)) * MS, process, Event.Type.INVOKE, Operation.ACQUIRE, 0, 0));
            events.add(Event.of(start * MS, process, Event.Type.OK, Operation.ACQUIRE, i + 1, 0));
            events.add(Event.of((start + 8) * MS, process, Event.Type.INVOKE, Operation.RELEASE, i + 1, 0));
        }
        return events;
    }

    private static RunCoverage coverage(List<Event> events, List<Fault> faults, long endNanos, List<FaultKind> announced) {
        History history = new History(events, faults, -10 * MS, endNanos, SECOND, 0, List.of());
        CheckReport report = new Checker(history, Set.of(), SECOND).check();
        return RunCoverage.of(history, report, announced);
    }

    /** A fault from {@code atMs} lasting 2 ms, on {@code process} (-1: the servers). */
    private static Fault fault(FaultKind kind, int process, long atMs) {
        return new Fault(kind, process, atMs * MS, (atMs + 2) * MS, kind.id());
    }

    @Test
    void aRunWhoseFaultsHitHoldersAndWereJudgedAndWhoseProcessesWaitedIsConclusive() {
        // hold 20 is process 2's (20 % 3), from 200 to 208 ms; hold 31 process 1's; holds go on for 1.5 s after both
        RunCoverage coverage = coverage(holds(300, 3, true), List.of(fault(FaultKind.PAUSE, 2, 201), fault(FaultKind.RESTART, -1, 311)),
                3000 * MS, List.of(FaultKind.PAUSE, FaultKind.RESTART));

        assertThat(coverage.conclusive()).as("problems: %s", coverage.problems()).isTrue();
    }

    @Test
    void aFaultKindThatNeverHappenedIsNamed() {
        RunCoverage coverage = coverage(holds(300, 3, true), List.of(fault(FaultKind.PAUSE, 2, 201)), 3000 * MS,
                List.of(FaultKind.PAUSE, FaultKind.KILL, FaultKind.RESTART));

        assertThat(coverage.conclusive()).isFalse();
        assertThat(coverage.problems()).singleElement().asString().contains("fault kinds never injected: kill, restart (of 3 announced");
    }

    @Test
    void noFaultAtAllIsSaidSo() {
        assertThat(coverage(holds(300, 3, true), List.of(), 3000 * MS, List.of(FaultKind.PAUSE)).problems())
                .singleElement().asString().startsWith("no fault was injected");
    }

    @Test
    void aFaultThatHitNobodyHoldingDoesNotCount() {
        // process 0 holds 300-308; process 1 is paused then (a waiter); and a restart lands between two holds (309 ms)
        RunCoverage coverage = coverage(holds(300, 3, true), List.of(fault(FaultKind.PAUSE, 1, 301), fault(FaultKind.RESTART, -1, 309)),
                3000 * MS, List.of(FaultKind.PAUSE, FaultKind.RESTART));

        assertThat(coverage.problems()).singleElement().asString()
                .contains("never hit a holder", "pause (1 injected, 0 on a holder", "restart (1 injected, 0 on a holder");
    }

    @Test
    void aFaultWhoseRecoveryTheRunEndedBeforeIsNotJudged() {
        // the last hold ends at 2998 ms; a pause of its holder at 2991 ms, and the run ends at 3200 ms: no acquisition came
        // after it, and the 2 s allowed for one (lease plus bound) reach past the end
        RunCoverage coverage = coverage(holds(300, 3, true), List.of(fault(FaultKind.PAUSE, 299 % 3, 2991)), 3200 * MS,
                List.of(FaultKind.PAUSE));

        assertThat(coverage.problems()).singleElement().asString().contains("pause (1 injected, 1 on a holder, none of those judged)");
    }

    @Test
    void processesThatNeverWaitedForEachOtherProveNothingAboutHandingTheLockOn() {
        assertThat(coverage(holds(300, 3, false), List.of(), 3000 * MS, List.of()).problems())
                .singleElement().asString().startsWith("only 0 acquisitions (by 0 processes) waited for another process's hold to end");
        assertThat(coverage(holds(300, 3, true), List.of(), 3000 * MS, List.of()).conclusive()).isTrue();
    }

    /**
     * A semaphore of two permits whose holders ask again just after their release, when a permit is free: each period
     * of 20 ms, process a holds 0-10 ms and process b 5-15 ms; process c asks at 11 ms (one permit free), a asks again at
     * 11 ms too and is granted 12-14 ms first, so c finds both permits held by others at 12 ms and is granted at 15 ms,
     * when b's hold ends. None of c's acquisitions found both permits held when it was invoked.
     */
    @Test
    void aSharedAcquireThatFindsAPermitFreeButWaitsWhileOthersFillThemHasWaited() {
        List<Event> events = new ArrayList<>();
        long token = 0;
        for (int k = 0; k < 40; k++) {
            long b = 20L * k;
            int pa = k % 3;
            int pb = (k + 1) % 3;
            int pc = (k + 2) % 3;
            token = shared(events, pa, b - 1, b, b + 10, token);
            token = shared(events, pb, b + 4, b + 5, b + 15, token);
            token = shared(events, pa, b + 11, b + 12, b + 14, token);
            token = shared(events, pc, b + 11, b + 15, b + 18, token);
        }
        History history = new History(events, List.of(), -10 * MS, 3000 * MS, SECOND, 0, List.of(),
                History.Rules.DEFAULT.withSharedLimit(2));
        CheckReport report = new Checker(history, Set.of(), SECOND).check();

        assertThat(report.overlaps()).as("never more than two holds at once").isEmpty();
        assertThat(RunCoverage.of(history, report, List.of()).problems()).as("each period's third acquire waited").isEmpty();
        History threePermits = new History(events, List.of(), -10 * MS, 3000 * MS, SECOND, 0, List.of(),
                History.Rules.DEFAULT.withSharedLimit(3));
        assertThat(RunCoverage.of(threePermits, new Checker(threePermits, Set.of(), SECOND).check(), List.of()).problems())
                .as("with three permits nobody waits").singleElement().asString().startsWith("only 0 acquisitions");
    }

    /** Adds a shared hold of {@code process}, invoked, granted and released at the given milliseconds; returns its token. */
    private static long shared(List<Event> events, int process, long invokeMs, long startMs, long endMs, long lastToken) {
        long token = lastToken + 1;
        events.add(new Event(invokeMs * MS, process, Event.Type.INVOKE, Operation.ACQUIRE, 0, 0, Checker.SHARED));
        events.add(new Event(startMs * MS, process, Event.Type.OK, Operation.ACQUIRE, token, 0, Checker.SHARED));
        events.add(Event.of(endMs * MS, process, Event.Type.INVOKE, Operation.RELEASE, token, 0));
        return token;
    }

    @Test
    void tooFewAcquisitionsOrASingleAcquirerProveNothing() {
        assertThat(coverage(holds(RunCoverage.MIN_ACQUISITIONS - 1, 3, true), List.of(), 3000 * MS, List.of()).problems())
                .singleElement().asString().startsWith("only 99 acquisitions completed");
        assertThat(coverage(holds(150, 1, true), List.of(), 3000 * MS, List.of()).problems())
                .singleElement().asString().contains("no two processes ever competed");
    }
}
