package io.distlock.checker;

import static io.distlock.checker.Operation.ACQUIRE;
import static io.distlock.checker.Operation.RELEASE;
import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.checker.Event.Type;
import io.distlock.checker.Overlap.Excuse;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The overlap invariant on hand-written histories: an overlap fails the run unless the history shows why the
 * lock's guarantee allows it (a holder past its recorded lease, or a fault after which the deployment does not
 * promise its locks).
 */
class ExclusionInvariantTest {

    @Test
    void fiveProcessesHoldingThePlainLockAtOnceWithoutAFaultViolateExclusion() {
        HistoryScript s = new HistoryScript();
        for (int p = 0; p < 5; p++) {
            s.hold(10 * p, p, 100 + p, 200);
        }

        CheckReport report = s.check(1000);
        CheckReport.Result overlap = report.result(Invariant.OVERLAP);

        assertThat(report.passed()).isFalse();
        assertThat(overlap.holds()).isFalse();
        assertThat(overlap.violations()).isEqualTo(10); // every pair of the five
        assertThat(overlap.summary()).startsWith("10 of 10 overlapping pairs violate exclusion (near: no fault 10)");
        assertThat(overlap.counterexamples()).first().asString()
                .startsWith("processes 0 and 1 both held the lock with valid leases")
                .contains("its lease ran until 1.001 s", "(no fault nearby)");
    }

    @Test
    void fiveHoldersOfATwoPermitSemaphoreWithoutAFaultViolateThePermitCount() {
        HistoryScript s = new HistoryScript();
        for (int p = 0; p < 5; p++) {
            s.shared(10 * p, p, 100 + p, 200);
        }

        CheckReport.Result overlap = s.check(1000, 2).result(Invariant.OVERLAP);

        assertThat(overlap.holds()).isFalse();
        assertThat(overlap.violations()).isEqualTo(3); // when the third, the fourth and the fifth began
        assertThat(overlap.counterexamples()).anyMatch(c -> c.startsWith("5 processes held shared holds at once with valid leases (at most 2 may)"));
    }

    @Test
    void anOverlapNearAPauseIsAViolationWhenTheEarlierHolderHadRenewedItsLease() {
        // 1 holds and renews (its lease now runs to 1.501 s); a pause of 1 is nearby, but 2 is granted at 1.101 s,
        // while 1's lease is still valid by its own record: the server let two valid leases coexist
        HistoryScript s = new HistoryScript().hold(0, 1, 100, 2600).lease(501, 1, 100, 1501).fault(FaultKind.PAUSE, 1, 600, 2500)
                .hold(1100, 2, 101, 1200);

        CheckReport report = s.check(5000);

        assertThat(report.overlaps()).singleElement().satisfies(o -> assertThat(o.excuse()).isEqualTo(Excuse.NONE));
        assertThat(report.result(Invariant.OVERLAP).summary()).contains("violates exclusion (near: pause 1)");
    }

    @Test
    void anOverlapThatBeginsAfterTheEarlierHoldersRecordedLeaseEndIsAllowed() {
        HistoryScript s = new HistoryScript().hold(0, 1, 100, 2600).lease(334, 1, 100, 1334).fault(FaultKind.PAUSE, 1, 400, 2500)
                .hold(1400, 2, 101, 1500);

        CheckReport report = s.check(5000);

        assertThat(report.result(Invariant.OVERLAP).holds()).isTrue();
        assertThat(report.overlaps()).singleElement().satisfies(o -> assertThat(o.excuse()).isEqualTo(Excuse.PAST_LEASE));
    }

    @Test
    void aHoldWithoutARecordedLeaseIsNeverExcusedByOne() {
        // the textbook locks record no lease: their overlaps are violations, faults or not
        HistoryScript s = new HistoryScript()
                .at(0, 1, Type.INVOKE, ACQUIRE, 0, 0).at(1, 1, Type.OK, ACQUIRE, 0, 0).fault(FaultKind.PAUSE, 1, 5, 2500)
                .at(2600, 1, Type.INVOKE, RELEASE, 0, 0).at(1500, 2, Type.INVOKE, ACQUIRE, 0, 0).at(1501, 2, Type.OK, ACQUIRE, 0, 0)
                .at(1600, 2, Type.INVOKE, RELEASE, 0, 0);

        assertThat(s.check(5000).result(Invariant.OVERLAP).holds()).isFalse();
    }

    @Test
    void aCrowdOfPermitsIsAllowedOnlyWhenNoMoreThanThePermitCountOfLeasesWereValid() {
        // permits of 1 and 2; 1 is paused past its lease, 2 renews; 3 then takes a permit: three holders, two valid leases
        HistoryScript s = new HistoryScript().shared(0, 1, 100, 2600).fault(FaultKind.PAUSE, 1, 5, 2500).shared(10, 2, 101, 3000)
                .lease(500, 2, 101, 1500 + 1000).shared(1500, 3, 102, 1600); // 2 keeps renewing

        CheckReport report = s.check(5000, 2);

        assertThat(report.result(Invariant.OVERLAP).holds()).isTrue();
        assertThat(report.overlaps()).singleElement().satisfies(o -> {
            assertThat(o.excuse()).isEqualTo(Excuse.PAST_LEASE);
            assertThat(o.holds()).hasSize(3);
        });
        // the same crowd while 1 had renewed: three valid leases on two permits
        s.lease(400, 1, 100, 1700);
        assertThat(s.check(5000, 2).result(Invariant.OVERLAP).violations()).isEqualTo(1);
    }

    @Test
    void anOverlapAcrossAFaultIsAllowedOnlyWhenTheDeploymentDoesNotPromiseItsLocksThrough() {
        // the server restarts while 1 holds; 2 is granted at once on the empty server, 1 learns at its next renewal
        HistoryScript s = new HistoryScript().hold(0, 1, 100, 400).fault(FaultKind.RESTART, -1, 100, 150).hold(200, 2, 101, 300);

        CheckReport lockLosing = s.check(5000, History.Rules.DEFAULT.withLockLosingFaults(Set.of(FaultKind.RESTART)));
        CheckReport promised = s.check(5000, History.Rules.DEFAULT.withLockLosingFaults(Set.of(FaultKind.PROMOTE)));

        assertThat(lockLosing.result(Invariant.OVERLAP).holds()).isTrue();
        assertThat(lockLosing.overlaps()).singleElement().satisfies(o -> {
            assertThat(o.excuse()).isEqualTo(Excuse.LOCK_LOSING_FAULT);
            assertThat(o.fault()).isNotNull().extracting(Fault::kind).isEqualTo(FaultKind.RESTART);
        });
        assertThat(promised.result(Invariant.OVERLAP).holds()).isFalse();
    }

    @Test
    void aLockLosingFaultBeforeTheFirstHoldersAcquireExcusesNothing() {
        HistoryScript s = new HistoryScript().fault(FaultKind.RESTART, -1, 0, 50).hold(100, 1, 100, 400).hold(200, 2, 101, 300);

        CheckReport report = s.check(5000, History.Rules.DEFAULT.withLockLosingFaults(Set.of(FaultKind.RESTART)));

        assertThat(report.result(Invariant.OVERLAP).holds()).isFalse();
    }

    @Test
    void aLeaseIsValidOnlyUntilItsHolderIsToldOfItsLossEvenWhenTheNoticeCameBeforeTheAcquiresOk() {
        // from a ZooKeeper run: a grant that crossed a session loss was lost (and let go) as the acquire returned;
        // the next holder came after the notice, while the lost lease's deadline lay still ahead
        HistoryScript s = new HistoryScript()
                .at(0, 5, Type.INVOKE, ACQUIRE, 0, 0).lease(100, 5, 409, 600)
                .at(101, 5, Type.INFO, Operation.LOST, 409, 0).at(101, 5, Type.OK, ACQUIRE, 409, 0)
                .at(104, 5, Type.INFO, Operation.ABORT, 409, 0)
                .hold(102, 6, 411, 106);

        CheckReport report = s.check(1000);

        assertThat(report.overlaps()).singleElement().satisfies(o -> assertThat(o.excuse()).isEqualTo(Excuse.PAST_LEASE));
        assertThat(report.holds()).filteredOn(h -> h.process() == 5).singleElement()
                .satisfies(h -> assertThat(h.leaseEndNanos()).isEqualTo(101 * HistoryScript.MS));
    }
}
