package io.distlock.etcd.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.servers.Await;
import java.time.Duration;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Real etcd processes: a cluster forms, elects again when its leader dies, and a killed member rejoins. */
class EtcdClusterTest {

    @BeforeAll
    static void needsEtcd() {
        Assumptions.assumeTrue(EtcdBinary.availableForTests(), "no etcd binary: " + EtcdBinary.HOW_TO_INSTALL);
    }

    @Test
    void aClusterElectsANewLeaderWhenItsLeaderDiesAndAKilledMemberRejoins() {
        try (EtcdCluster cluster = EtcdCluster.launch(3, false)) {
            assertThat(cluster.endpoints().split(",")).hasSize(3).allMatch(url -> url.startsWith("http://127.0.0.1:"));
            int leader = cluster.awaitLeader();
            cluster.member(leader).kill();
            assertThat(cluster.member(leader).isRunning()).isFalse();
            int next = cluster.awaitLeader();
            assertThat(next).isNotEqualTo(leader);
            cluster.member(leader).start();
            Await.until(Duration.ofSeconds(30), "the restarted member follows a leader", () -> cluster.member(leader).hasLeader());
        }
    }

    @Test
    void aPausedServerAnswersNothingUntilItIsResumed() {
        try (EtcdCluster cluster = EtcdCluster.launch()) {
            EtcdMember member = cluster.member(0);
            assertThat(member.isLeader()).isTrue();
            member.pause();
            assertThat(member.isLeader()).as("a frozen server does not answer its metrics").isFalse();
            member.resume();
            Await.until(Duration.ofSeconds(10), "the resumed server answers", member::isLeader);
        }
    }

    @Test
    void aClusterNeedsAtLeastOneMember() {
        assertThatThrownBy(() -> EtcdCluster.launch(0, false)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least one");
    }
}
