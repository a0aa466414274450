package io.distlock.etcd;

import static io.distlock.etcd.EtcdDoctor.await;
import static io.distlock.etcd.EtcdDoctor.reason;

import io.distlock.BackendUnavailableException;
import io.distlock.DoctorCheck;
import io.distlock.Finding;
import io.distlock.Finding.Severity;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.cluster.Member;
import io.etcd.jetcd.maintenance.AlarmMember;
import io.etcd.jetcd.maintenance.AlarmType;
import io.etcd.jetcd.maintenance.StatusResponse;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/** The doctor's findings on the cluster itself: the members and their health, the leader, the version, the alarms. */
final class EtcdClusterFindings {
    static final DoctorCheck VERSION = new DoctorCheck("etcd.version", "each member's etcd version (Status), for the record", "", "",
            "always", "");
    static final DoctorCheck MEMBERS = new DoctorCheck("etcd.members", "the voting members (MemberList) and whether each answers (Status at "
            + "its client URL)", "", "one member (its restart or loss stops every acquire and renewal; away longer than the session TTL, "
                    + "every holder loses its lock); an even count (it survives no more member losses than one member fewer, and a "
                    + "network split into halves stops it); a member that does not answer, or was added and never started",
            "an odd number of members, three or more, all answering", "3 or 5 members (etcdctl member add, then start the new member "
                    + "with --initial-cluster-state existing); start a member that does not answer again, or remove it (etcdctl member remove)");
    static final DoctorCheck LEADER = new DoctorCheck("etcd.leader", "the leader each member reports (Status)", "", "no leader (etcd "
            + "answers no acquire and no keep-alive until one is elected; past the session TTL every holder loses its lock), or members "
            + "that name different leaders", "every member that answers names the same leader",
            "bring back a majority of the members, connected to each other; the members' logs tell why elections fail");
    static final DoctorCheck ALARMS = new DoctorCheck("etcd.alarms", "active alarms (Alarm) and the database size (Status) against "
            + "--quota-backend-bytes (/metrics)", "", "NOSPACE (etcd refuses every write that adds data: every acquire fails and a lost "
                    + "session cannot be replaced, while held locks stay held, as keep-alives and releases still work); CORRUPT (etcd refuses "
                    + "every transaction: acquires and releases fail) or any other alarm", "no alarm", "compact and defragment (etcdctl compact, etcdctl defrag) or raise --quota-backend-bytes, then "
                    + "etcdctl alarm disarm");

    /** The most revisions kept since the last compaction that {@link #HISTORY} calls ok. */
    static final long HISTORY_KEPT_AT_MOST = 1_000_000;
    static final DoctorCheck HISTORY = new DoctorCheck("etcd.history", "the revisions etcd keeps since its last compaction "
            + "(/metrics: etcd_debugging_mvcc_current_revision less etcd_debugging_mvcc_compact_revision)", "", "more than "
            + String.format(Locale.ROOT, "%,d", HISTORY_KEPT_AT_MOST) + " revisions kept: etcd keeps every deleted key and "
            + "every revision, in memory and on disk, until a compaction; the database grows towards the NOSPACE alarm, which "
            + "stops every acquire, and an acquire reads past every key its name had since (one per client session and "
            + "waiter: names used by many short-lived clients get slower)",
            "a compaction within the last " + String.format(Locale.ROOT, "%,d", HISTORY_KEPT_AT_MOST) + " revisions",
            "compact automatically: start etcd with --auto-compaction-mode=periodic --auto-compaction-retention=1h (or "
                    + "--auto-compaction-mode=revision), or run etcdctl compact regularly; etcdctl defrag returns the space");

    private EtcdClusterFindings() {}

    /**
     * One member as the doctor saw it.
     *
     * @param member its entry in the member list
     * @param status its answer to Status at its client URL, or null
     * @param failure why it did not answer (empty if it did)
     */
    record MemberView(Member member, @Nullable StatusResponse status, String failure) {
        /** Returns its name, or its id in hex for a member that never started. */
        String name() {
            return member.getName().isEmpty() ? Long.toHexString(member.getId()) : member.getName();
        }

        /** Returns its Status answer; only for a member that answered ({@link Cluster#answering()}). */
        StatusResponse answer() {
            return Objects.requireNonNull(status, "the member did not answer");
        }

        /** Returns its first client URL, or its first peer URL for a member that never started (it has no client URL yet). */
        URI clientUrl() {
            return member.getClientURIs().isEmpty() ? member.getPeerURIs().get(0) : member.getClientURIs().get(0);
        }
    }

    /**
     * The member list, each member with its Status; empty with the reason when the list was refused.
     *
     * @throws BackendUnavailableException if the list got no answer
     */
    static Cluster members(Client reader, Duration timeout, String where) {
        List<Member> list;
        try {
            list = await(reader.getClusterClient().listMember(), timeout).getMembers();
        } catch (CompletionException e) {
            if (EtcdDoctor.unavailable(e)) {
                throw new BackendUnavailableException("the etcd doctor could not read the members of " + where + ": " + reason(e), e);
            }
            return new Cluster(List.of(), "the member list was refused: " + reason(e));
        }
        Map<Member, CompletableFuture<StatusResponse>> asked = new LinkedHashMap<>();
        for (Member member : list) {
            asked.put(member, member.getClientURIs().isEmpty() ? CompletableFuture.failedFuture(new IllegalStateException(
                    "added and never started")) : reader.getMaintenanceClient().statusMember(member.getClientURIs().get(0).getAuthority()));
        }
        List<MemberView> views = new ArrayList<>();
        asked.forEach((member, status) -> {
            try {
                views.add(new MemberView(member, await(status, timeout), ""));
            } catch (CompletionException e) {
                views.add(new MemberView(member, null, reason(e)));
            }
        });
        return new Cluster(views, "");
    }

    /**
     * What the doctor read of the cluster.
     *
     * @param members every member with its Status, or none if the list was refused
     * @param refused why the list was refused, or empty
     */
    record Cluster(List<MemberView> members, String refused) {
        /** Returns the members that answered Status. */
        List<MemberView> answering() {
            return members.stream().filter(member -> member.status() != null).toList();
        }
    }

    static Finding version(Cluster cluster) {
        Map<String, List<String>> byVersion = cluster.answering().stream().collect(Collectors.groupingBy(member -> member.answer().getVersion(),
                LinkedHashMap::new, Collectors.mapping(MemberView::name, Collectors.toList())));
        if (byVersion.isEmpty()) {
            return VERSION.unknown(cluster.refused().isEmpty() ? "no member answered Status" : cluster.refused(), "the version is not known");
        }
        return VERSION.ok(byVersion.entrySet().stream().map(entry -> "etcd " + entry.getKey() + " (" + String.join(", ", entry.getValue()) + ")")
                .collect(Collectors.joining(", ")), "the members' version, for the record");
    }

    static Finding members(Cluster cluster) {
        if (cluster.members().isEmpty()) {
            return MEMBERS.unknown(cluster.refused(), "the members cannot be counted");
        }
        List<MemberView> voters = cluster.members().stream().filter(member -> !member.member().isLearner()).toList();
        int size = voters.size();
        int quorum = size / 2 + 1;
        List<MemberView> silent = voters.stream().filter(member -> member.status() == null).toList();
        String observed = size + " voting member(s): " + voters.stream().map(member -> member.name() + " " + member.clientUrl()
                + (member.status() == null ? " (no answer: " + member.failure() + ")" : "")).collect(Collectors.joining(", "))
                + learners(cluster.members());
        List<String> problems = new ArrayList<>();
        if (size == 1) {
            problems.add("one member: its restart or loss stops every acquire and renewal, away longer than the session TTL every holder "
                    + "loses its lock, and its lost disk loses every lock");
        } else if (size % 2 == 0) {
            problems.add(size + " members, an even count: it needs " + quorum + " of them, so it survives no more losses than " + (size - 1)
                    + " members would" + (size == 2 ? " (none: losing either stops it)" : "") + ", and a network split into halves stops it");
        }
        for (MemberView member : silent) {
            problems.add(member.name() + " at " + member.clientUrl() + (member.member().getClientURIs().isEmpty() ? " was added and never "
                    + "started" : " does not answer (stopped, or not reachable from here)"));
        }
        int answering = size - silent.size();
        if (!silent.isEmpty()) {
            problems.add(answering < quorum ? "only " + answering + " of " + size + " answer, fewer than the " + quorum + " etcd needs: "
                    + "no acquire or keep-alive is answered" : "the cluster survives the loss of " + (answering - quorum) + " more");
        }
        if (problems.isEmpty()) {
            return MEMBERS.ok(observed, size + " members, all answering: locking goes on with " + (size - quorum) + " of them lost");
        }
        return MEMBERS.finding(Severity.RISKY, observed, String.join("; ", problems), MEMBERS.fix());
    }

    private static String learners(List<MemberView> members) {
        List<String> learners = members.stream().filter(member -> member.member().isLearner()).map(MemberView::name).toList();
        return learners.isEmpty() ? "" : "; learners (no vote): " + String.join(", ", learners);
    }

    static Finding leader(Cluster cluster) {
        List<MemberView> answering = cluster.answering();
        if (answering.isEmpty()) {
            return LEADER.unknown(cluster.refused().isEmpty() ? "no member answered Status" : cluster.refused(), "the leader is not known");
        }
        Map<Long, String> names = new LinkedHashMap<>();
        cluster.members().forEach(member -> names.put(member.member().getId(), member.name()));
        List<Long> leaders = answering.stream().map(member -> member.answer().getLeader()).distinct().toList();
        String observed = answering.stream().map(member -> member.name() + " names " + leaderName(member.answer().getLeader(), names))
                .collect(Collectors.joining(", "));
        if (leaders.contains(0L)) {
            return LEADER.finding(Severity.RISKY, observed, "no leader: etcd answers no acquire, no renewal and no keep-alive until one is "
                    + "elected, and a session without an answered keep-alive for its TTL is lost with every lock of its client "
                    + "(etcd itself keeps the leases: a new leader gives each its TTL again)", LEADER.fix());
        }
        if (leaders.size() > 1) {
            return LEADER.finding(Severity.RISKY, observed, "the members name different leaders: an election is under way, or a member "
                    + "is cut off from the others", LEADER.fix());
        }
        // a member reports the last leader it heard of until its election timeout passes: check that one can still lead
        List<MemberView> voters = cluster.members().stream().filter(member -> !member.member().isLearner()).toList();
        long answeringVoters = voters.stream().filter(member -> member.status() != null).count();
        if (answeringVoters < voters.size() / 2 + 1) {
            return LEADER.finding(Severity.RISKY, observed, "only " + answeringVoters + " of " + voters.size() + " members answer here, fewer "
                    + "than the " + (voters.size() / 2 + 1) + " a leader needs: no acquire and no keep-alive is answered", LEADER.fix());
        }
        if (cluster.members().stream().anyMatch(member -> member.member().getId() == leaders.get(0) && member.status() == null)) {
            return LEADER.finding(Severity.RISKY, observed, "the leader they name does not answer here: an election is due, and until it "
                    + "ends no acquire and no keep-alive is answered", LEADER.fix());
        }
        return LEADER.ok("leader " + leaderName(leaders.get(0), names) + " (" + observed + ")", "every member that answers follows the same leader");
    }

    private static String leaderName(long id, Map<Long, String> names) {
        return id == 0 ? "no leader" : names.getOrDefault(id, Long.toHexString(id));
    }

    static Finding alarms(Client reader, Cluster cluster, Optional<String> metrics, Duration timeout) {
        String size = size(cluster, metrics);
        List<AlarmMember> alarms;
        try {
            alarms = await(reader.getMaintenanceClient().listAlarms(), timeout).getAlarms();
        } catch (CompletionException e) {
            return ALARMS.unknown("the alarm list could not be read: " + reason(e) + size, "whether etcd refuses writes is not known");
        }
        if (alarms.isEmpty()) {
            return ALARMS.ok("no alarm" + size, "etcd takes writes: acquires work (at the quota it raises NOSPACE and takes none)");
        }
        Map<Long, String> names = new LinkedHashMap<>();
        cluster.members().forEach(member -> names.put(member.member().getId(), member.name()));
        String observed = alarms.stream().map(alarm -> (alarm.getAlarmType() == AlarmType.UNRECOGNIZED ? "an alarm jetcd does not name "
                + "(CORRUPT?)" : alarm.getAlarmType().name()) + " on " + names.getOrDefault(alarm.getMemberId(), Long.toHexString(alarm.getMemberId())))
                .collect(Collectors.joining(", ")) + size;
        if (alarms.stream().allMatch(alarm -> alarm.getAlarmType() == AlarmType.NOSPACE)) {
            return ALARMS.finding(Severity.RISKY, observed, "NOSPACE: etcd refuses every write that adds data, so every acquire fails "
                    + "(database space exceeded) and a lost session cannot be replaced; held locks stay held: keep-alives, renewals "
                    + "and releases still work", ALARMS.fix());
        }
        return ALARMS.finding(Severity.RISKY, observed, "with a CORRUPT alarm etcd refuses every transaction and lease grant (acquires and "
                + "releases fail) until an operator clears it", "find the member whose data differ (etcd's logs), replace it, then etcdctl alarm disarm");
    }

    /** Reads the first answering member's /metrics (empty if none answers, or it is not served). */
    static Optional<String> metrics(Cluster cluster, Duration timeout) {
        return cluster.answering().isEmpty() ? Optional.empty() : EtcdDoctor.read(cluster.answering().get(0).clientUrl(), "/metrics", timeout);
    }

    /** Judges the revisions kept since the last compaction from {@code metrics} (see {@link #metrics}). */
    static Finding history(Optional<String> metrics) {
        OptionalLong current = metrics.map(text -> gauge(text, "etcd_debugging_mvcc_current_revision")).orElse(OptionalLong.empty());
        OptionalLong compacted = metrics.map(text -> gauge(text, "etcd_debugging_mvcc_compact_revision")).orElse(OptionalLong.empty());
        if (current.isEmpty() || compacted.isEmpty()) {
            return HISTORY.unknown(metrics.isEmpty() ? "/metrics could not be read (no member answers, or none serves it)" : "/metrics has no revision gauges (etcd_debugging_mvcc_"
                    + "current_revision, etcd_debugging_mvcc_compact_revision)", "how much history etcd keeps is not known");
        }
        return judgeHistory(current.getAsLong(), compacted.getAsLong());
    }

    /** Judges the history kept: {@code current} is etcd's revision, {@code compacted} that of its last compaction (0: none). */
    static Finding judgeHistory(long current, long compacted) {
        long kept = Math.max(0, current - compacted);
        String observed = String.format(Locale.ROOT, "%,d revisions kept (revision %,d, ", kept, current)
                + (compacted == 0 ? "never compacted)" : String.format(Locale.ROOT, "compacted at %,d)", compacted));
        if (kept > HISTORY_KEPT_AT_MOST) {
            return HISTORY.finding(Severity.RISKY, observed, "etcd keeps every revision and every key deleted since " + (compacted == 0
                    ? "it started" : "then") + ": the database grows towards the NOSPACE alarm, which stops every acquire, and an acquire "
                    + "reads past every key its name had (one per client session and waiter)", HISTORY.fix());
        }
        return HISTORY.ok(observed, "an acquire reads past few deleted keys, and the database stays small (without compaction the "
                + "history only grows, and gets past " + String.format(Locale.ROOT, "%,d", HISTORY_KEPT_AT_MOST) + " in time)");
    }

    /** Returns the value of a gauge without labels in Prometheus text, if it is there. */
    private static OptionalLong gauge(String text, String name) {
        return text.lines().filter(line -> line.startsWith(name + " ")).findFirst()
                .map(line -> OptionalLong.of((long) Double.parseDouble(line.substring(line.indexOf(' ') + 1).trim()))).orElse(OptionalLong.empty());
    }

    /** Returns ", database 1.2 MiB of a 2.0 GiB quota" as far as it is readable, or "". */
    private static String size(Cluster cluster, Optional<String> metrics) {
        long largest = cluster.answering().stream().mapToLong(member -> member.answer().getDbSize()).max().orElse(-1);
        if (largest < 0) {
            return "";
        }
        OptionalLong quotaBytes = metrics.map(text -> gauge(text, "etcd_server_quota_backend_bytes")).orElse(OptionalLong.empty());
        String quota = quotaBytes.isPresent() ? " of a " + bytes(quotaBytes.getAsLong()) + " quota" : "";
        return ", database " + bytes(largest) + quota;
    }

    private static String bytes(long bytes) {
        return bytes < 1 << 20 ? String.format(Locale.ROOT, "%.1f KiB", bytes / 1024.0) : bytes < 1 << 30
                ? String.format(Locale.ROOT, "%.1f MiB", bytes / (1024.0 * 1024)) : String.format(Locale.ROOT, "%.1f GiB", bytes / (1024.0 * 1024 * 1024));
    }
}
