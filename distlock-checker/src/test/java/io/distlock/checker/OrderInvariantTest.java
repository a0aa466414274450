package io.distlock.checker;

import static io.distlock.checker.Operation.ACQUIRE;
import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.checker.Event.Type;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The arrival-order invariant on hand-written histories: a lock that queues its waiters must not grant a later
 * arrival ahead of a waiter that was surely queued (pending longer than the bound) when the later one arrived.
 */
class OrderInvariantTest {
    private static final long MS = HistoryScript.MS;
    private static final History.Rules FAIR = History.Rules.DEFAULT.withOrderBound(500 * MS);

    /** 1 holds 0-2000; 2 waits from 100; 3 arrives at 1000, after 2 was surely queued (600). */
    private static HistoryScript queue(long secondGrantedAt, long thirdGrantedAt) {
        return new HistoryScript().hold(0, 1, 100, 2000)
                .at(100, 2, Type.INVOKE, ACQUIRE, 0, 0).at(secondGrantedAt, 2, Type.OK, ACQUIRE, 101, 0)
                .at(secondGrantedAt + 50, 2, Type.INVOKE, Operation.RELEASE, 101, 0)
                .at(1000, 3, Type.INVOKE, ACQUIRE, 0, 0).at(thirdGrantedAt, 3, Type.OK, ACQUIRE, 102, 0)
                .at(thirdGrantedAt + 50, 3, Type.INVOKE, Operation.RELEASE, 102, 0);
    }

    @Test
    void grantsInArrivalOrderHold() {
        CheckReport.Result order = queue(2001, 2052).check(5000, FAIR).result(Invariant.ORDER);

        assertThat(order.holds()).isTrue();
        assertThat(order.summary()).isEqualTo("1 later arrivals judged against 2 surely queued waiters: none granted ahead");
    }

    @Test
    void aLaterArrivalGrantedAheadOfAQueuedWaiterIsAViolation() {
        CheckReport.Result order = queue(2052, 2001).check(5000, FAIR).result(Invariant.ORDER);

        assertThat(order.holds()).isFalse();
        assertThat(order.counterexamples()).singleElement().asString()
                .startsWith("process 3 was granted ahead of process 2, which had been waiting since 0.100 s (surely queued by 0.600 s)");
    }

    @Test
    void anArrivalBeforeTheWaiterWasSurelyQueuedIsNotJudged() {
        // 3 arrives at 500, before 2 (waiting since 100) is surely queued at 600: their joins may have crossed
        HistoryScript s = new HistoryScript().hold(0, 1, 100, 2000)
                .at(100, 2, Type.INVOKE, ACQUIRE, 0, 0).at(2052, 2, Type.OK, ACQUIRE, 101, 0)
                .at(500, 3, Type.INVOKE, ACQUIRE, 0, 0).at(2001, 3, Type.OK, ACQUIRE, 102, 0);

        assertThat(s.check(5000, FAIR).result(Invariant.ORDER).holds()).isTrue();
    }

    @Test
    void aFaultOnTheWaiterOrOneThatLosesTheQueueAllowsReordering() {
        HistoryScript paused = queue(2052, 2001).fault(FaultKind.PAUSE, 2, 1500, 1900);
        HistoryScript restarted = queue(2052, 2001).fault(FaultKind.RESTART, -1, 1500, 1600);
        HistoryScript otherPaused = queue(2052, 2001).fault(FaultKind.PAUSE, 1, 1500, 1900);

        assertThat(paused.check(5000, FAIR).result(Invariant.ORDER).holds()).isTrue();
        assertThat(restarted.check(5000, FAIR.withLockLosingFaults(Set.of(FaultKind.RESTART))).result(Invariant.ORDER).holds()).isTrue();
        assertThat(restarted.check(5000, FAIR).result(Invariant.ORDER).holds()).isFalse();
        assertThat(otherPaused.check(5000, FAIR).result(Invariant.ORDER).holds()).isFalse();
    }

    /**
     * Found by a soak (ZooKeeper, read-write lock, 68 waiters overtaken, every one across a member's loss): a
     * fault that sends waiters to the back of the queue allows reordering only where the deployment names it, and
     * excuses no overlap.
     */
    @Test
    void aFaultThatRequeuesWaitersAllowsReorderingOnlyWhereTheDeploymentNamesItAndExcusesNoOverlap() {
        HistoryScript memberLost = queue(2052, 2001).fault(FaultKind.MEMBER, -1, 1500, 1600);
        History.Rules zooKeeper = FAIR.withRequeueFaults(Set.of(FaultKind.MEMBER));

        assertThat(memberLost.check(5000, zooKeeper).result(Invariant.ORDER).holds()).isTrue();
        assertThat(memberLost.check(5000, FAIR).result(Invariant.ORDER).holds()).isFalse();

        HistoryScript overlapAcrossIt = new HistoryScript().hold(0, 1, 100, 2000).lease(900, 1, 100, 2900).hold(1700, 2, 101, 2500)
                .fault(FaultKind.MEMBER, -1, 1500, 1600);
        assertThat(overlapAcrossIt.check(5000, zooKeeper).result(Invariant.OVERLAP).holds()).isFalse();
    }

    /**
     * Found by a soak (ZooKeeper, fair lock, seed 2836): a waiter whose 2.5 s wait ran out leaves the queue at its
     * deadline and its call returns a little later; a grant in between (46 ms after the deadline there) did not
     * overtake it. With the workers' wait known, the waiter is judged until its deadline, not until its call returned.
     */
    @Test
    void aWaiterIsJudgedUntilItsWaitRanOutNotUntilItsCallReturned() {
        // 2 waits from 100 with a wait of 2,000 ms: its deadline is 2,100; its call returns at 2,200
        HistoryScript s = new HistoryScript().hold(0, 1, 100, 2140)
                .at(100, 2, Type.INVOKE, ACQUIRE, 0, 0).at(2200, 2, Type.FAIL, ACQUIRE, 0, 0)
                .at(1000, 3, Type.INVOKE, ACQUIRE, 0, 0).at(2150, 3, Type.OK, ACQUIRE, 102, 0);

        assertThat(s.check(5000, FAIR.withWait(2000 * MS)).result(Invariant.ORDER).holds()).isTrue();
        assertThat(s.check(5000, FAIR).result(Invariant.ORDER).holds()).as("without the wait known").isFalse();
        HistoryScript before = new HistoryScript().hold(0, 1, 100, 2040)
                .at(100, 2, Type.INVOKE, ACQUIRE, 0, 0).at(2200, 2, Type.FAIL, ACQUIRE, 0, 0)
                .at(1000, 3, Type.INVOKE, ACQUIRE, 0, 0).at(2050, 3, Type.OK, ACQUIRE, 102, 0);
        assertThat(before.check(5000, FAIR.withWait(2000 * MS)).result(Invariant.ORDER).holds()).as("granted before the deadline").isFalse();
    }

    @Test
    void aWaiterWhoseWaitRanOutMustStillNotHaveBeenOvertaken() {
        HistoryScript s = new HistoryScript().hold(0, 1, 100, 3000)
                .at(100, 2, Type.INVOKE, ACQUIRE, 0, 0).at(2500, 2, Type.FAIL, ACQUIRE, 0, 0)
                .at(1000, 3, Type.INVOKE, ACQUIRE, 0, 0).at(2001, 3, Type.OK, ACQUIRE, 102, 0);

        assertThat(s.check(5000, FAIR).result(Invariant.ORDER).counterexamples()).singleElement().asString()
                .contains("was still waiting when its wait ran out at 2.500 s");
    }

    @Test
    void twoSharedHoldsAreNotJudgedAndALockWithoutOrderIsNotJudgedAtAll() {
        HistoryScript readers = new HistoryScript().hold(0, 1, 100, 2000)
                .at(100, 2, Type.INVOKE, ACQUIRE, 0, 0, Checker.SHARED).at(2052, 2, Type.OK, ACQUIRE, 101, 0, Checker.SHARED)
                .at(1000, 3, Type.INVOKE, ACQUIRE, 0, 0, Checker.SHARED).at(2001, 3, Type.OK, ACQUIRE, 102, 0, Checker.SHARED);

        assertThat(readers.check(5000, FAIR).result(Invariant.ORDER).holds()).isTrue();
        assertThat(queue(2052, 2001).check(5000).result(Invariant.ORDER).summary()).startsWith("not judged");
    }

    @Test
    void aWaiterRecordedAsQueuedIsJudgedFromThenOnEvenBeforeTheBound() {
        // 2 waits from 100 and is seen queued at 150; 3 arrives at 300 (before the 600 ms bound) and is granted first
        HistoryScript s = new HistoryScript().hold(0, 1, 100, 2000)
                .at(100, 2, Type.INVOKE, ACQUIRE, 0, 0).at(150, 2, Type.INFO, Operation.QUEUED, 0, 0).at(2052, 2, Type.OK, ACQUIRE, 101, 0)
                .at(300, 3, Type.INVOKE, ACQUIRE, 0, 0).at(2001, 3, Type.OK, ACQUIRE, 102, 0);

        CheckReport.Result order = s.check(5000, FAIR).result(Invariant.ORDER);

        assertThat(order.holds()).isFalse();
        assertThat(order.counterexamples()).singleElement().asString().contains("(surely queued by 0.150 s)");
        // a QUEUED record of an earlier attempt does not carry over
        HistoryScript earlier = new HistoryScript().hold(0, 1, 100, 2000)
                .at(50, 2, Type.INVOKE, ACQUIRE, 0, 0).at(60, 2, Type.INFO, Operation.QUEUED, 0, 0).at(70, 2, Type.FAIL, ACQUIRE, 0, 0)
                .at(100, 2, Type.INVOKE, ACQUIRE, 0, 0).at(2052, 2, Type.OK, ACQUIRE, 101, 0)
                .at(300, 3, Type.INVOKE, ACQUIRE, 0, 0).at(2001, 3, Type.OK, ACQUIRE, 102, 0);
        assertThat(earlier.check(5000, FAIR).result(Invariant.ORDER).holds()).isTrue();
    }
}
