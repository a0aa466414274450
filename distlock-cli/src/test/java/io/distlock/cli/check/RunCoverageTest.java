package io.distlock.cli.check;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.checker.Event;
import io.distlock.checker.Fault;
import io.distlock.checker.FaultKind;
import io.distlock.checker.History;
import io.distlock.checker.Operation;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RunCoverageTest {
    private static History history(int acquisitions, int processes, List<Fault> faults) {
        List<Event> events = new ArrayList<>();
        for (int i = 0; i < acquisitions; i++) {
            events.add(Event.of(i * 10L, i % processes, Event.Type.OK, Operation.ACQUIRE, i + 1, 0));
        }
        return new History(events, faults, 0, acquisitions * 10L + 10, 1_000_000, 0, List.of(), History.UNLIMITED);
    }

    private static Fault fault(FaultKind kind) {
        return new Fault(kind, 1, 0, 1, kind.id());
    }

    @Test
    void aRunWithEveryAnnouncedFaultAndCompetingProcessesIsConclusive() {
        RunCoverage coverage = RunCoverage.of(history(50, 3, List.of(fault(FaultKind.PAUSE), fault(FaultKind.KILL))),
                List.of(FaultKind.PAUSE, FaultKind.KILL));

        assertThat(coverage.conclusive()).as("problems: %s", coverage.problems()).isTrue();
    }

    @Test
    void aFaultKindThatNeverHappenedIsNamed() {
        RunCoverage coverage = RunCoverage.of(history(50, 3, List.of(fault(FaultKind.PAUSE))),
                List.of(FaultKind.PAUSE, FaultKind.KILL, FaultKind.RESTART));

        assertThat(coverage.conclusive()).isFalse();
        assertThat(coverage.problems()).singleElement().asString().contains("fault kinds never injected: kill, restart (of 3 announced");
    }

    @Test
    void noFaultAtAllIsSaidSo() {
        assertThat(RunCoverage.of(history(50, 3, List.of()), List.of(FaultKind.PAUSE)).problems())
                .singleElement().asString().startsWith("no fault was injected");
    }

    @Test
    void tooFewAcquisitionsOrASingleAcquirerProveNothing() {
        assertThat(RunCoverage.of(history(RunCoverage.MIN_ACQUISITIONS - 1, 3, List.of()), List.of()).problems())
                .singleElement().asString().startsWith("only 19 acquisitions completed");
        assertThat(RunCoverage.of(history(100, 1, List.of()), List.of()).problems())
                .singleElement().asString().contains("no two processes ever competed");
        assertThat(RunCoverage.of(history(RunCoverage.MIN_ACQUISITIONS, 2, List.of()), List.of()).conclusive()).isTrue();
    }
}
