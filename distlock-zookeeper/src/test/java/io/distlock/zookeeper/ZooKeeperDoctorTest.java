package io.distlock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.BackendUnavailableException;
import io.distlock.Finding;
import io.distlock.Finding.Severity;
import io.distlock.LockClients;
import io.distlock.LockOptions;
import io.distlock.OpenOptions;
import io.distlock.servers.Await;
import io.distlock.servers.FreePorts;
import io.distlock.servers.TcpProxy;
import io.distlock.zookeeper.testing.ZooKeeperEnsemble;
import io.distlock.zookeeper.testing.ZooKeeperServer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.zookeeper.server.command.FourLetterCommands;
import org.junit.jupiter.api.Test;

/**
 * The ZooKeeper doctor against real in-process servers and ensembles configured both ways for each finding, asserting
 * the exact severity. The test servers tick every 250 ms, so by default they grant sessions of 0.5 to 5 s.
 */
class ZooKeeperDoctorTest {
    /** A session the test servers grant as asked: the other findings are then judged alone. */
    private static final String GRANTED = "?sessionTimeout=4s";

    private static List<Finding> diagnose(String target) {
        return diagnose(target, OpenOptions.defaults());
    }

    private static List<Finding> diagnose(String target, OpenOptions options) {
        return LockClients.diagnose(target, options);
    }

    private static Finding finding(List<Finding> findings, String check) {
        return findings.stream().filter(f -> f.check().equals(check)).findFirst()
                .orElseThrow(() -> new AssertionError("no finding " + check + " in " + findings));
    }

    @Test
    void aSingleServerIsRiskyAndAThreeMemberEnsembleIsOk() {
        try (ZooKeeperServer single = ZooKeeperServer.launch(); ZooKeeperEnsemble three = ZooKeeperEnsemble.launch(3)) {
            List<Finding> alone = diagnose("zk://" + single.connectString() + GRANTED);
            Finding ensemble = finding(alone, "zookeeper.ensemble");
            assertThat(ensemble.severity()).isEqualTo(Severity.RISKY);
            assertThat(ensemble.observed()).contains("standalone");
            assertThat(ensemble.why()).contains("every held lock is freed");
            assertThat(finding(alone, "zookeeper.mode").severity()).isEqualTo(Severity.OK);
            assertThat(Finding.exitCode(alone)).isEqualTo(1);

            List<Finding> quorum = diagnose("zk://" + three.connectString() + "/some/chroot" + GRANTED);
            assertThat(finding(quorum, "zookeeper.ensemble").severity()).isEqualTo(Severity.OK);
            assertThat(finding(quorum, "zookeeper.ensemble").observed()).startsWith("3 voting members in /zookeeper/config");
            assertThat(finding(quorum, "zookeeper.mode").severity()).isEqualTo(Severity.OK);
            assertThat(finding(quorum, "zookeeper.mode").observed()).contains("leader").contains("follower");
            assertThat(finding(quorum, "zookeeper.version").observed()).contains("3.");
            assertThat(quorum).extracting(Finding::severity).containsOnly(Severity.OK);
            assertThat(Finding.exitCode(quorum)).isZero();

            Finding oneMemberOfThree = finding(diagnose("zk://127.0.0.1:" + portOf(three, 0) + GRANTED), "zookeeper.ensemble");
            assertThat(oneMemberOfThree.severity()).as("the members come from the ensemble, not from the target")
                    .isEqualTo(Severity.OK);
        }
    }

    private static int portOf(ZooKeeperEnsemble ensemble, int index) {
        return Integer.parseInt(ensemble.connectString().split(",")[index].split(":")[1]);
    }

    @Test
    void aTwoMemberEnsembleIsRiskyAndSoIsAQuorumOfOne() {
        try (ZooKeeperEnsemble two = ZooKeeperEnsemble.launch(2); ZooKeeperEnsemble one = ZooKeeperEnsemble.launch(1)) {
            Finding even = finding(diagnose("zk://" + two.connectString() + GRANTED), "zookeeper.ensemble");
            assertThat(even.severity()).isEqualTo(Severity.RISKY);
            assertThat(even.why()).contains("survive the loss of 0 members, as 1 would");
            Finding single = finding(diagnose("zk://" + one.connectString() + GRANTED), "zookeeper.ensemble");
            assertThat(single.severity()).isEqualTo(Severity.RISKY);
            assertThat(single.observed()).startsWith("1 voting member in /zookeeper/config");
        }
    }

    @Test
    void aServerThatCutsTheRequestedSessionIsRiskyAndOneThatGrantsItIsOk() {
        try (ZooKeeperServer capped = ZooKeeperServer.launch(); // maxSessionTimeout 20 ticks: 5 s
                ZooKeeperServer generous = ZooKeeperServer.launch(Map.of("minSessionTimeout", "3000", "maxSessionTimeout", "20000"))) {
            Finding cut = finding(diagnose("zk://" + capped.connectString()), "zookeeper.session-timeout");
            assertThat(cut.severity()).isEqualTo(Severity.RISKY);
            assertThat(cut.observed()).isEqualTo("requested 15000 ms, negotiated 5000 ms");
            assertThat(cut.why()).contains("cuts the session to 5000 ms");
            assertThat(cut.fix()).contains("maxSessionTimeout=15000");

            List<Finding> granted = diagnose("zk://" + generous.connectString());
            assertThat(finding(granted, "zookeeper.session-timeout").severity()).isEqualTo(Severity.OK);
            assertThat(finding(granted, "zookeeper.session-timeout").observed()).isEqualTo("requested 15000 ms, negotiated 15000 ms");

            Finding raised = finding(diagnose("zk://" + generous.connectString() + "?sessionTimeout=1s"), "zookeeper.session-timeout");
            assertThat(raised.severity()).isEqualTo(Severity.RISKY);
            assertThat(raised.why()).contains("raises the session to 3000 ms").contains("stay held");

            Finding tooLongLease = finding(diagnose("zk://alice:secret@" + generous.connectString(), OpenOptions.defaults()
                    .lockOptions(LockOptions.builder().leaseTime(Duration.ofSeconds(30)).build())), "zookeeper.session-timeout");
            assertThat(tooLongLease.severity()).as("the client refuses a lease longer than its session").isEqualTo(Severity.RISKY);
            assertThat(tooLongLease.why()).contains("refuses it when it opens");
        }
    }

    @Test
    void aMemberThatIsDownOrCutOffFromItsQuorumIsRisky() {
        // a read-only server takes new sessions as local sessions only (ZooKeeper 3.6+)
        try (ZooKeeperEnsemble three = ZooKeeperEnsemble.launch(3, Map.of("localSessionsEnabled", "true"))) {
            String survivor = "127.0.0.1:" + portOf(three, 0);
            assertThat(finding(diagnose("zk://" + survivor + GRANTED), "zookeeper.mode").severity()).isEqualTo(Severity.OK);

            three.kill(2);
            Await.until(Duration.ofSeconds(30), "the other two serve", () -> three.isServing(0) && three.isServing(1));
            List<Finding> memberDown = diagnose("zk://" + three.connectString() + GRANTED);
            Finding down = finding(memberDown, "zookeeper.mode");
            assertThat(down.severity()).isEqualTo(Severity.RISKY);
            assertThat(down.why()).startsWith("127.0.0.1:" + portOf(three, 2) + " not serving");
            assertThat(finding(memberDown, "zookeeper.ensemble").severity()).as("still three voting members").isEqualTo(Severity.OK);

            System.setProperty("readonlymode.enabled", "true"); // read by a member each time it looks for a quorum
            try {
                three.kill(1);
                Await.until(Duration.ofSeconds(30), "the survivor serves read-only",
                        () -> "read-only".equals(ZooKeeperServerStatus.ask(survivor, Duration.ofSeconds(1)).mode()));
                List<Finding> findings = diagnose("zk://" + survivor + GRANTED);
                Finding mode = finding(findings, "zookeeper.mode");
                assertThat(mode.severity()).isEqualTo(Severity.RISKY);
                assertThat(mode.why()).contains("acquires fail");
                assertThat(mode.observed()).contains(survivor + " read-only").contains("the doctor's session is read-only");
                assertThat(Finding.exitCode(findings)).isEqualTo(1);
            } finally {
                System.clearProperty("readonlymode.enabled");
            }
        }
    }

    @Test
    void theNarrowestWhitelistStillLetsTheDoctorReadModeAndVersion() {
        // ruok, stat, conf, mntr are off unless whitelisted; srvr is always on (ZooKeeper 3.5+). The whitelist is read once
        // per JVM into a static list: set it, start a server, and put it back.
        System.setProperty("zookeeper.4lw.commands.whitelist", "ruok");
        FourLetterCommands.resetWhiteList();
        try (ZooKeeperServer server = ZooKeeperServer.launch()) {
            List<Finding> findings = diagnose("zk://" + server.connectString() + GRANTED);
            assertThat(finding(findings, "zookeeper.mode").severity()).isEqualTo(Severity.OK);
            assertThat(finding(findings, "zookeeper.version").severity()).isEqualTo(Severity.OK);
            assertThat(finding(findings, "zookeeper.ensemble").severity()).isEqualTo(Severity.RISKY);
        } finally {
            System.clearProperty("zookeeper.4lw.commands.whitelist");
            FourLetterCommands.resetWhiteList();
        }
    }

    @Test
    void roundTripsOfAThirdOfTheLeaseAreRiskyAndOfLessAreOk() {
        try (ZooKeeperServer server = ZooKeeperServer.launch(); TcpProxy link = TcpProxy.to(server.port())) {
            link.delay(Duration.ofMillis(100)); // each way: a round trip takes 200 ms or more
            String target = "zk://127.0.0.1:" + link.port() + "?sessionTimeout=5s";
            Finding session = finding(diagnose(target), "zookeeper.latency");
            assertThat(session.severity()).as(session.observed()).isEqualTo(Severity.OK);
            assertThat(session.observed()).as("without a leaseTime, the lease is the negotiated session").contains("lease 5000.0 ms");
            Finding shortLease = finding(diagnose(target, OpenOptions.defaults().lockOptions(LockOptions.builder()
                    .leaseTime(Duration.ofMillis(500)).build())), "zookeeper.latency");
            assertThat(shortLease.severity()).as(shortLease.observed()).isEqualTo(Severity.RISKY);
            assertThat(shortLease.observed()).contains("lease 500.0 ms");
            assertThat(shortLease.fix()).contains("longer lease").contains("?sessionTimeout=");
        }
    }

    @Test
    void anUnreachableServerIsReportedWithItsTargetMasked() {
        int port = FreePorts.next();
        assertThatThrownBy(() -> LockClients.diagnose("zk://alice:secret@127.0.0.1:" + port + "?connectionTimeout=1s", OpenOptions.defaults()))
                .isInstanceOf(BackendUnavailableException.class).hasMessageContaining("zk://alice:***@127.0.0.1:" + port)
                .hasMessageNotContaining("secret");
        assertThatThrownBy(() -> LockClients.diagnose("zk://127.0.0.1", OpenOptions.defaults())).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("has no port");
    }
}
