package io.distlock.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.Finding;
import io.distlock.Finding.Severity;
import io.distlock.etcd.EtcdClusterFindings.Cluster;
import io.distlock.etcd.EtcdClusterFindings.MemberView;
import io.etcd.jetcd.cluster.Member;
import io.etcd.jetcd.maintenance.StatusResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * The etcd doctor's judgements on what the test clusters do not show on demand: a member's command line without the
 * election timeout, and the leader the members report in the moment before they notice it is gone. Pure logic on the
 * values etcd answers with, no server.
 */
class EtcdDoctorRulesTest {
    private static final Duration TTL = Duration.ofSeconds(15);

    private static Finding judge(Optional<List<String>> commandLine) {
        return EtcdSessionTtlCheck.judge(TTL, Optional.empty(), Map.of("m0", commandLine));
    }

    @Test
    void anElectionTimeoutTheCommandLineDoesNotShowIsUnknownNotAGuess() {
        String vars = "{\n\"cmdline\": [\"etcd\",\"--name\",\"a\\\"b\\u0041\",\"--election-timeout=2000\"],\n\"memstats\": {}}";
        List<String> line = EtcdSessionTtlCheck.commandLine(vars).orElseThrow();
        assertThat(line).containsExactly("etcd", "--name", "a\"bA", "--election-timeout=2000");
        assertThat(judge(Optional.of(line)).severity()).as("15 s is 7.5 election timeouts of 2 s").isEqualTo(Severity.OK);
        assertThat(judge(Optional.of(List.of("etcd", "-election-timeout", "5000"))).severity()).as("15 s is 3 election timeouts of 5 s")
                .isEqualTo(Severity.RISKY);
        Finding noFlag = judge(Optional.of(List.of("etcd", "--name", "m0")));
        assertThat(noFlag.severity()).isEqualTo(Severity.UNKNOWN);
        assertThat(noFlag.why()).contains("default of 1000 ms").contains("15.0 election timeouts");
        assertThat(judge(Optional.of(List.of("etcd", "--config-file", "/etc/etcd.yml", "--election-timeout", "500"))).severity())
                .as("a config file replaces every flag").isEqualTo(Severity.UNKNOWN);
        assertThat(judge(Optional.empty()).severity()).as("no /debug/vars").isEqualTo(Severity.UNKNOWN);
    }

    @Test
    void aHistoryOfMoreThanAMillionRevisionsSinceTheLastCompactionIsRisky() {
        Finding fresh = EtcdClusterFindings.judgeHistory(1_000_000, 0);
        assertThat(fresh.severity()).isEqualTo(Severity.OK);
        assertThat(fresh.observed()).isEqualTo("1,000,000 revisions kept (revision 1,000,000, never compacted)");
        Finding never = EtcdClusterFindings.judgeHistory(1_000_001, 0);
        assertThat(never.severity()).isEqualTo(Severity.RISKY);
        assertThat(never.why()).contains("since it started").contains("NOSPACE");
        assertThat(never.fix()).contains("--auto-compaction-retention");
        assertThat(EtcdClusterFindings.judgeHistory(5_000_000, 4_500_000).severity()).as("compacted recently").isEqualTo(Severity.OK);
        Finding stale = EtcdClusterFindings.judgeHistory(5_000_000, 3_000_000);
        assertThat(stale.severity()).isEqualTo(Severity.RISKY);
        assertThat(stale.observed()).isEqualTo("2,000,000 revisions kept (revision 5,000,000, compacted at 3,000,000)");
    }

    @Test
    void aLeaderIsOkOnlyWhenTheAnsweringMembersAgreeOnOneThatAnswersWithAQuorum() {
        assertThat(leader(view(1, "m0", 1L), view(2, "m1", 1L), view(3, "m2", 1L))).isEqualTo(Severity.OK);
        assertThat(leader(view(1, "m0", 1L), view(2, "m1", 1L), view(3, "m2", null))).as("a follower gone").isEqualTo(Severity.OK);
        assertThat(leader(view(1, "m0", null), view(2, "m1", 1L), view(3, "m2", 1L))).as("the named leader does not answer")
                .isEqualTo(Severity.RISKY);
        assertThat(leader(view(1, "m0", null), view(2, "m1", null), view(3, "m2", 3L))).as("one of three cannot lead").isEqualTo(Severity.RISKY);
        assertThat(leader(view(1, "m0", 1L), view(2, "m1", 2L), view(3, "m2", 1L))).as("two leaders named").isEqualTo(Severity.RISKY);
        assertThat(leader(view(1, "m0", 0L), view(2, "m1", 0L), view(3, "m2", 0L))).as("no leader").isEqualTo(Severity.RISKY);
    }

    private static Severity leader(MemberView... members) {
        return EtcdClusterFindings.leader(new Cluster(List.of(members), "")).severity();
    }

    /** A member as Status shows it: naming {@code leader}, or not answering (null). */
    private static MemberView view(long id, String name, @Nullable Long leader) {
        Member member = new Member(io.etcd.jetcd.api.Member.newBuilder().setID(id).setName(name).addClientURLs("http://" + name + ".invalid:2379")
                .build());
        StatusResponse status = leader == null ? null : new StatusResponse(io.etcd.jetcd.api.StatusResponse.newBuilder().setLeader(leader)
                .setVersion("3.4.23").build());
        return new MemberView(member, status, leader == null ? "UNAVAILABLE" : "");
    }
}
