package io.distlock.checker;

import static io.distlock.checker.Operation.ACQUIRE;
import static io.distlock.checker.Operation.FENCED_WRITE;
import static io.distlock.checker.Operation.LOST;
import static io.distlock.checker.Operation.READ;
import static io.distlock.checker.Operation.RELEASE;
import static io.distlock.checker.Operation.WRITE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.checker.Event.Type;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The checker on hand-written histories: valid ones pass, each kind of violation is found. */
class CheckerTest {
    private static final long MS = HistoryScript.MS;
    private static final long LEASE_NANOS = HistoryScript.LEASE_NANOS;
    private static final Set<Invariant> ALL = EnumSet.allOf(Invariant.class);

    @Test
    void aCleanHistoryPassesEveryInvariant() {
        HistoryScript s = new HistoryScript();
        for (int i = 0; i < 10; i++) {
            s.cycle(i * 20L, i % 3, 100 + i);
        }
        CheckReport report = s.check(500);

        assertThat(report.passed()).isTrue();
        assertThat(report.results()).allMatch(CheckReport.Result::holds);
        assertThat(report.stats().acquisitions()).isEqualTo(10);
        assertThat(report.holds()).hasSize(10);
        assertThat(report.toText()).contains("tokens").doesNotContain("violated", "VIOLATED");
    }

    @Test
    void aTokenIssuedTwiceIsAViolation() {
        HistoryScript s = new HistoryScript().cycle(0, 1, 100).cycle(20, 2, 100);

        CheckReport.Result tokens = s.check(100).result(Invariant.TOKENS);

        assertThat(tokens.holds()).isFalse();
        assertThat(tokens.counterexamples()).anyMatch(c -> c.contains("token 100 issued twice"));
    }

    @Test
    void aLowerTokenAfterAHigherOneCompletedIsAViolation() {
        HistoryScript s = new HistoryScript().cycle(0, 1, 200).cycle(20, 2, 150);

        CheckReport report = s.check(100);

        assertThat(report.passed()).isFalse();
        assertThat(report.result(Invariant.TOKENS).counterexamples())
                .anyMatch(c -> c.contains("token 150 was issued after token 200"));
    }

    @Test
    void concurrentAcquisitionsMayCompleteInEitherOrder() {
        // 1 is invoked first and granted 100 by the server, but its answer arrives after 2's (token 101):
        // neither completed before the other was invoked, so there is no real-time order to violate.
        HistoryScript s = new HistoryScript()
                .at(0, 1, Type.INVOKE, ACQUIRE, 0, 0)
                .at(1, 2, Type.INVOKE, ACQUIRE, 0, 0)
                .at(2, 2, Type.OK, ACQUIRE, 101, 0)
                .at(3, 1, Type.OK, ACQUIRE, 100, 0);

        assertThat(s.check(100).result(Invariant.TOKENS).holds()).isTrue();
    }

    @Test
    void theFencedStoreAcceptingALowerTokenIsAViolation() {
        HistoryScript s = new HistoryScript().cycle(0, 1, 100).cycle(20, 2, 101);
        s.fenced.add(new FencedWrite(99, 3, 7));

        CheckReport.Result fenced = s.check(100).result(Invariant.FENCED_WRITES);

        assertThat(fenced.holds()).isFalse();
        assertThat(fenced.counterexamples()).anyMatch(c -> c.contains("accepted token 99") && c.contains("after token 101"));
    }

    @Test
    void aFencedWriteAfterTheHolderWasToldOfItsLossIsAViolation() {
        HistoryScript s = new HistoryScript()
                .at(0, 1, Type.INVOKE, ACQUIRE, 0, 0)
                .at(1, 1, Type.OK, ACQUIRE, 100, 0)
                .at(50, 1, Type.INFO, LOST, 100, 0)
                .at(60, 1, Type.INVOKE, FENCED_WRITE, 100, 1)
                .at(61, 1, Type.OK, FENCED_WRITE, 100, 1);
        s.fenced.add(new FencedWrite(100, 1, 1));

        CheckReport.Result fenced = s.check(100).result(Invariant.FENCED_WRITES);

        assertThat(fenced.holds()).isFalse();
        assertThat(fenced.counterexamples()).anyMatch(c -> c.contains("wrote after it was told its lease was lost"));
    }

    @Test
    void anUncheckedWriteOfAFrozenHolderIsJudgedByTheStoreOnlyAndStoreRejectionsAreCounted() {
        HistoryScript s = new HistoryScript()
                .at(0, 1, Type.INVOKE, ACQUIRE, 0, 0)
                .at(1, 1, Type.OK, ACQUIRE, 100, 0)
                .at(50, 1, Type.INFO, LOST, 100, 0);
        s.events.add(new Event(60 * MS, 1, Type.INVOKE, FENCED_WRITE, 100, 1, Checker.UNCHECKED + ": frozen for 1200 ms"));
        s.at(61, 1, Type.OK, FENCED_WRITE, 100, 1); // nobody wrote since: the store accepts it, as it should
        s.fenced.add(new FencedWrite(100, 1, 1));
        s.cycle(100, 2, 101);
        s.events.add(new Event(130 * MS, 1, Type.INVOKE, FENCED_WRITE, 100, 2, Checker.UNCHECKED + ": frozen for 900 ms"));
        s.events.add(new Event(131 * MS, 1, Type.FAIL, FENCED_WRITE, 100, 2, "rejected by the store: a higher token had written"));
        s.events.add(new Event(140 * MS, 2, Type.FAIL, FENCED_WRITE, 101, 3, Checker.NOT_SENT + ": lease no longer valid"));

        CheckReport report = s.check(200);

        assertThat(report.result(Invariant.FENCED_WRITES).holds()).isTrue();
        assertThat(report.stats().rejectedFencedWrites()).as("store rejections; a write not sent is not one").isEqualTo(1);
        assertThat(report.toText()).contains("1 rejected by the store");
    }

    @Test
    void acknowledgedFencedWritesMissingFromTheStoreAreAViolation() {
        HistoryScript s = new HistoryScript().cycle(0, 1, 100).cycle(20, 2, 101);
        s.fenced.remove(1);

        assertThat(s.check(100).result(Invariant.FENCED_WRITES).holds()).isFalse();
    }

    @Test
    void writesTheStoreAcceptedWithoutARecordedInvokeFailTheRunWhateverTheLockClaims() {
        // process 2's events stopped reaching the history after its first cycle, but it went on writing
        HistoryScript s = new HistoryScript().cycle(0, 1, 100).cycle(20, 2, 101).cycle(40, 1, 104);
        s.fenced.add(2, new FencedWrite(102, 2, 3));
        s.fenced.add(3, new FencedWrite(103, 2, 4));
        History history = s.history(100, History.Rules.DEFAULT);

        CheckReport report = new Checker(history, EnumSet.of(Invariant.TOKENS), 2000 * MS).check();

        CheckReport.Result recording = report.result(Invariant.RECORDING);
        assertThat(recording.holds()).isFalse();
        assertThat(recording.claimed()).as("claimed by every lock").isTrue();
        assertThat(recording.violations()).isEqualTo(2);
        assertThat(recording.counterexamples()).singleElement().asString()
                .contains("2 writes of process 2", "tokens 102 to 103", "cannot be judged");
        assertThat(report.result(Invariant.TOKENS).holds()).isTrue();
        assertThat(report.passed()).isFalse();
    }

    @Test
    void eachRecordedInvokeAccountsForOneAcceptedWrite() {
        // a lock without tokens writes token 0 every time: two invokes cover two entries, not three
        HistoryScript s = new HistoryScript()
                .at(0, 1, Type.INVOKE, FENCED_WRITE, 0, 1).at(1, 1, Type.OK, FENCED_WRITE, 0, 1)
                .at(2, 1, Type.INVOKE, FENCED_WRITE, 0, 2).at(3, 1, Type.OK, FENCED_WRITE, 0, 2);
        s.fenced.add(new FencedWrite(0, 1, 1));
        s.fenced.add(new FencedWrite(0, 1, 2));

        assertThat(s.check(100).result(Invariant.RECORDING).holds()).isTrue();

        s.fenced.add(new FencedWrite(0, 1, 3));
        assertThat(s.check(100).result(Invariant.RECORDING).violations()).isEqualTo(1);
    }

    @Test
    void twoHoldersWritingTheSameValueIsALostUpdateAndAnOverlapAllowedPastTheFirstHoldersLease() {
        // 1 holds, is paused past its lease; 2 acquires; both read 0 and write 1.
        HistoryScript s = new HistoryScript()
                .at(0, 1, Type.INVOKE, ACQUIRE, 0, 0)
                .at(1, 1, Type.OK, ACQUIRE, 100, 0)
                .lease(1, 1, 100, 1001)
                .at(2, 1, Type.OK, READ, 100, 0)
                .fault(FaultKind.PAUSE, 1, 3, 2500)
                .at(1100, 2, Type.INVOKE, ACQUIRE, 0, 0)
                .at(1101, 2, Type.OK, ACQUIRE, 101, 0)
                .at(1102, 2, Type.OK, READ, 101, 0)
                .at(1103, 2, Type.OK, WRITE, 101, 1)
                .at(1104, 2, Type.INVOKE, RELEASE, 101, 0)
                .at(2501, 1, Type.OK, WRITE, 100, 1)
                .at(2502, 1, Type.INVOKE, RELEASE, 100, 0);
        s.register = 1;

        CheckReport report = s.check(6000);

        CheckReport.Result lost = report.result(Invariant.LOST_UPDATES);
        assertThat(lost.holds()).isFalse();
        assertThat(lost.violations()).isEqualTo(1);
        assertThat(lost.counterexamples()).anyMatch(c -> c.contains("both wrote 1") && c.contains("pause of process 1"));
        CheckReport.Result overlap = report.result(Invariant.OVERLAP);
        assertThat(overlap.holds()).isTrue();
        assertThat(report.overlaps()).singleElement().extracting(Overlap::excuse).isEqualTo(Overlap.Excuse.PAST_LEASE);
        assertThat(overlap.summary()).isEqualTo("1 overlapping pair, all allowed (1 allowed: an earlier holder was past its lease)");
        assertThat(lost.summary()).endsWith("(near: pause 1)");
    }

    @Test
    void aRegisterResetBelowTheAcknowledgedIncrementsIsALostUpdate() {
        HistoryScript s = new HistoryScript().cycle(0, 1, 100).cycle(20, 2, 101).cycle(40, 3, 102);
        s.register = 1; // e.g. the store lost two writes

        CheckReport.Result lost = s.check(100).result(Invariant.LOST_UPDATES);

        assertThat(lost.holds()).isFalse();
        assertThat(lost.violations()).isEqualTo(2);
    }

    @Test
    void aHoldEndsWhenTheHolderLearnsOfItsLossOrIsKilled() {
        HistoryScript s = new HistoryScript()
                .at(0, 1, Type.OK, ACQUIRE, 100, 0)
                .at(500, 1, Type.INFO, LOST, 100, 0)
                .at(600, 2, Type.OK, ACQUIRE, 101, 0)
                .fault(FaultKind.KILL, 2, 700, 700)
                .at(2000, 3, Type.OK, ACQUIRE, 102, 0);

        CheckReport report = s.check(3000);

        assertThat(report.result(Invariant.OVERLAP).holds()).isTrue();
        assertThat(report.holds()).extracting(Hold::endedBy).containsExactly("lost", "killed", "end-of-run");
    }

    @Test
    void noAcquisitionAfterAHealedFaultIsALivenessViolation() {
        HistoryScript s = new HistoryScript().cycle(0, 1, 100).fault(FaultKind.RESTART, -1, 100, 200).cycle(5000, 2, 101);

        CheckReport.Result liveness = s.check(10_000).result(Invariant.LIVENESS);

        assertThat(liveness.holds()).isFalse();
        assertThat(liveness.counterexamples()).anyMatch(c -> c.contains("no acquisition within 3.0 s after restart"));
    }

    @Test
    void anAcquisitionSoonAfterTheFaultSatisfiesLivenessAndFaultsTooCloseToTheEndAreNotJudged() {
        HistoryScript s = new HistoryScript().fault(FaultKind.RESTART, -1, 100, 200).cycle(1500, 2, 101).fault(FaultKind.PAUSE, 1, 9000, 9500);

        CheckReport.Result liveness = s.check(10_000).result(Invariant.LIVENESS);

        assertThat(liveness.holds()).isTrue();
        assertThat(liveness.summary()).startsWith("1 healed faults");
    }

    @Test
    void onlyClaimedInvariantsDecideTheVerdict() {
        HistoryScript s = new HistoryScript().cycle(0, 1, 100).cycle(20, 2, 101);
        s.register = 0;
        History history = new History(s.events, s.faults, 0, 100 * MS, LEASE_NANOS, 0, s.fenced);

        assertThat(new Checker(history, EnumSet.of(Invariant.TOKENS), 0).check().passed()).isTrue();
        assertThat(new Checker(history, EnumSet.of(Invariant.LOST_UPDATES), 0).check().passed()).isFalse();
    }

    @Test
    void locksWithoutTokensFailTheTokenInvariant() {
        HistoryScript s = new HistoryScript().cycle(0, 1, 0).cycle(20, 2, 0);

        CheckReport.Result tokens = s.check(100).result(Invariant.TOKENS);

        assertThat(tokens.holds()).isFalse();
        assertThat(tokens.summary()).contains("issues no fencing tokens");
    }

    @Test
    void eventsSurviveTheLineFormatAndBadLinesAreNamed() {
        Event event = new Event(123, 4, Type.INFO, RELEASE, 77, 0, "BackendUnavailableException: no answer\nin time");

        Event parsed = Event.parse(event.toLine());

        assertThat(parsed).isEqualTo(new Event(123, 4, Type.INFO, RELEASE, 77, 0, "BackendUnavailableException: no answer in time"));
        assertThatThrownBy(() -> Event.parse("EV 1 2")).hasMessageContaining("needs at least 6");
        assertThatThrownBy(() -> Event.parse("hello")).hasMessageContaining("not an event line");
    }

    @Test
    void theHtmlReportShowsLanesFaultsAndOverlapsGroupedByTheFaultsNearThem() {
        HistoryScript s = new HistoryScript()
                .at(0, 1, Type.OK, ACQUIRE, 4294967351L, 0)
                .lease(0, 1, 4294967351L, 1000)
                .fault(FaultKind.PAUSE, 1, 10, 2500)
                .at(1100, 2, Type.OK, ACQUIRE, 4294967400L, 0)
                .at(1200, 2, Type.INVOKE, RELEASE, 4294967400L, 0)
                .at(2600, 1, Type.INVOKE, RELEASE, 4294967351L, 0);
        History history = new History(s.events, s.faults, 0, 3000 * MS, LEASE_NANOS, 0, s.fenced);
        CheckReport report = new Checker(history, ALL, 2000 * MS).check();

        String html = TimelineReport.html(new TimelineReport.Header("t <1>", "OK: fine", true, "./distlock check --seed 1"), history, report);

        assertThat(html).contains("<h1>t &lt;1&gt;</h1>", "./distlock check --seed 1", "\"lanes\":[1,2]", "pause of process 1",
                        "1 pair allowed (an earlier holder was past its lease), near 1 fault: pause of process 1 at 0.010 s",
                        "\"le\":1000", "\"v\":false",
                        "process 1 (t1, 0.000 s-2.600 s, ended by release, lease until 1.000 s) and process 2 (t2, 1.100 s-1.200 s, "
                                + "ended by release)")
                .doesNotContain("FAIL", "\"m\":\"lostupdate\"", " src=", "https:");
        s.at(1150, 2, Type.OK, WRITE, 4294967400L, 5).at(2550, 1, Type.OK, WRITE, 4294967351L, 5);
        History withLostUpdate = new History(s.events, s.faults, 0, 3000 * MS, LEASE_NANOS, 0, s.fenced);
        assertThat(TimelineReport.html(new TimelineReport.Header("t", "VIOLATION", true, null), withLostUpdate, s.check(3000)))
                .contains("\"m\":\"lostupdate\"", "processes 2 and 1 both wrote 5");
    }

    @Test
    void overlapsAreGroupedByTheFaultsNearThemAndTokensNumberedBySize() {
        HistoryScript s = new HistoryScript()
                .at(0, 1, Type.OK, ACQUIRE, 900, 0)
                .fault(FaultKind.PAUSE, 1, 10, 2500)
                .at(1100, 2, Type.OK, ACQUIRE, 50, 0)
                .at(1200, 2, Type.INVOKE, RELEASE, 50, 0)
                .at(1300, 3, Type.OK, ACQUIRE, 7000, 0)
                .at(1400, 3, Type.INVOKE, RELEASE, 7000, 0)
                .at(2600, 1, Type.INVOKE, RELEASE, 900, 0)
                .at(10_000, 4, Type.OK, ACQUIRE, 7001, 0)
                .at(10_100, 5, Type.OK, ACQUIRE, 7002, 0)
                .at(10_200, 5, Type.INVOKE, RELEASE, 7002, 0)
                .at(10_300, 4, Type.INVOKE, RELEASE, 7001, 0);
        CheckReport report = s.check(11_000);
        History history = new History(s.events, s.faults, 0, 11_000 * MS, LEASE_NANOS, 0, s.fenced);

        List<TimelineReport.OverlapGroup> groups = TimelineReport.groups(history, report.overlaps());

        assertThat(report.overlaps()).hasSize(3);
        assertThat(groups).hasSize(2);
        assertThat(TimelineReport.label(history, report, groups.get(0)))
                .isEqualTo("2 pairs VIOLATING exclusion, near 1 fault: pause of process 1 at 0.010 s");
        assertThat(TimelineReport.label(history, report, groups.get(1))).isEqualTo("1 pair VIOLATING exclusion, near no fault");
        assertThat(TimelineReport.tokenRanks(history)).containsEntry(50L, 1).containsEntry(900L, 2).containsEntry(7000L, 3).containsEntry(7002L, 5);
    }

    @Test
    void readersMayOverlapEachOtherButNotAWriter() {
        // readers 1 and 2 together, then writer 3 after both: a correct read-write history
        HistoryScript s = new HistoryScript().shared(0, 1, 100, 50).shared(10, 2, 101, 30).cycle(60, 3, 102);

        CheckReport report = s.check(200);

        assertThat(report.passed()).isTrue();
        assertThat(report.holds()).filteredOn(Hold::shared).hasSize(2);
        // a reader that begins while the writer holds
        s.shared(63, 4, 103, 20);
        CheckReport.Result overlap = s.check(200).result(Invariant.OVERLAP);
        assertThat(overlap.holds()).isFalse();
        assertThat(overlap.violations()).isEqualTo(1);
        assertThat(overlap.counterexamples()).anyMatch(c -> c.contains("processes 3 and 4 both held the lock"));
    }

    @Test
    void moreSharedHoldsThanPermitsAreAViolation() {
        HistoryScript s = new HistoryScript().shared(0, 1, 100, 50).shared(10, 2, 101, 50);

        assertThat(s.check(200, 2).result(Invariant.OVERLAP).holds()).isTrue();
        s.shared(20, 3, 102, 50);
        CheckReport.Result threeOnTwoPermits = s.check(200, 2).result(Invariant.OVERLAP);
        assertThat(threeOnTwoPermits.holds()).isFalse();
        assertThat(threeOnTwoPermits.summary()).startsWith("1 of 1 overlap (pairs, or more shared holds than the 2 permits) violates exclusion");
        assertThat(threeOnTwoPermits.counterexamples()).anyMatch(c -> c.startsWith("3 processes held shared holds at once with valid leases (at most 2 may)"));
        assertThat(s.check(200, 3).result(Invariant.OVERLAP).holds()).isTrue();
    }

    @Test
    void aHistoryFileKeepsTheSharedLimit(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        HistoryScript s = new HistoryScript().shared(0, 1, 100, 50).shared(10, 2, 101, 50).shared(20, 3, 102, 50);
        History history = s.history(200, History.Rules.DEFAULT.withSharedLimit(2));
        java.nio.file.Path file = dir.resolve("history.txt");

        HistoryFile.write(history, file);
        History read = HistoryFile.read(file);

        assertThat(read).isEqualTo(history);
        assertThat(new Checker(read, ALL, 0).check().result(Invariant.OVERLAP).holds()).isFalse();
    }

    @Test
    void aHistoryFileKeepsTheFaultsThatLoseLocksOrRequeueWaitersAndTheOrderBound(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        History.Rules rules = History.Rules.DEFAULT.withLockLosingFaults(java.util.Set.of(FaultKind.RESTART, FaultKind.PROMOTE))
                .withRequeueFaults(java.util.Set.of(FaultKind.MEMBER)).withOrderBound(750 * MS).withWait(2500 * MS);
        History history = new HistoryScript().cycle(0, 1, 100).history(200, rules);
        java.nio.file.Path file = dir.resolve("history.txt");

        HistoryFile.write(history, file);

        assertThat(java.nio.file.Files.readAllLines(file).get(0)).endsWith(" losing=restart,promote requeue=member order=" + 750 * MS + " wait=" + 2500 * MS);
        assertThat(HistoryFile.read(file).rules()).isEqualTo(rules);
    }

    @Test
    void aHistoryFileReadsBackToTheSameVerdict(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        HistoryScript s = new HistoryScript().cycle(0, 1, 100).fault(FaultKind.PAUSE, 1, 30, 40).cycle(50, 2, 101);
        History history = new History(s.events, s.faults, 0, 200 * MS, LEASE_NANOS, s.register, s.fenced);
        java.nio.file.Path file = dir.resolve("history.txt");

        HistoryFile.write(history, file);
        History read = HistoryFile.read(file);

        assertThat(read).isEqualTo(history);
        java.nio.file.Files.writeString(file, "RUN 0 1 2 3\nEV 1 2\n");
        assertThatThrownBy(() -> HistoryFile.read(file)).hasMessageContaining("line 2");
        java.nio.file.Files.writeString(file, "");
        assertThatThrownBy(() -> HistoryFile.read(file)).hasMessageContaining("no RUN line");
    }
}
