package io.distlock.zookeeper.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.servers.Await;
import io.distlock.servers.FreePorts;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The in-process ZooKeeper launchers: they serve, restarts keep the data, a killed member leaves a quorum. */
class ZooKeeperServerTest {
    private static final Duration SOON = Duration.ofSeconds(30);
    private final List<ZooKeeper> clients = new ArrayList<>();

    @AfterEach
    void closeClients() throws InterruptedException {
        for (ZooKeeper client : clients) {
            client.close();
        }
    }

    private ZooKeeper connect(String connectString) throws Exception {
        ZooKeeper client = new ZooKeeper(connectString, 4000, event -> { });
        clients.add(client);
        Await.until(SOON, "a client is connected to " + connectString, () -> client.getState().isConnected());
        return client;
    }

    private static void write(ZooKeeper client, String path, String value) throws Exception {
        client.create(path, value.getBytes(StandardCharsets.UTF_8), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    }

    private static String read(ZooKeeper client, String path) throws Exception {
        return new String(client.getData(path, false, null), StandardCharsets.UTF_8);
    }

    @Test
    void aServerInAJvmOfItsOwnServesUntilClosed() throws Exception {
        String connectString;
        int port;
        try (ZooKeeperProcess server = ZooKeeperProcess.launch()) {
            connectString = server.connectString();
            port = Integer.parseInt(connectString.substring(connectString.indexOf(':') + 1));
            assertThat(port).isNotEqualTo(2181);
            assertThat(server.pid()).as("another process").isNotEqualTo(ProcessHandle.current().pid());
            assertThat(ProcessHandle.of(server.pid())).as("running").hasValueSatisfying(p -> assertThat(p.isAlive()).isTrue());
            assertThat(ZooKeeperStatus.mode(port)).contains("standalone");
            ZooKeeper client = connect(connectString);
            write(client, "/there", "yes");
            assertThat(read(client, "/there")).isEqualTo("yes");
        }
        assertThat(ZooKeeperStatus.mode(port)).as("a closed server does not answer").isEmpty();
    }

    @Test
    void aStandaloneServerServesOnAFreePortAndKeepsItsDataAcrossStopStartAndRestart() throws Exception {
        try (ZooKeeperServer server = ZooKeeperServer.launch()) {
            assertThat(server.port()).isNotEqualTo(2181);
            assertThat(ZooKeeperStatus.mode(server.port())).contains("standalone");
            ZooKeeper client = connect(server.connectString());
            write(client, "/kept", "before");

            server.stop();
            assertThat(server.isRunning()).isFalse();
            assertThat(ZooKeeperStatus.mode(server.port())).as("a stopped server does not answer").isEmpty();
            server.start();
            assertThat(Await.succeeds(SOON, "the node is readable after start", () -> read(client, "/kept"))).isEqualTo("before");

            server.restart();
            assertThat(read(connect(server.connectString()), "/kept")).isEqualTo("before");
        }
    }

    @Test
    void zooKeepersRequestToExitTheJvmFailsTheMemberInsteadOfEndingTheJvm() {
        EnsembleMember member = new EnsembleMember(7);
        try {
            member.start(java.util.Map.of("server.7", "127.0.0.1:" + FreePorts.next() + ":" + FreePorts.next()));
            long before = ZooKeeperExits.requests();

            // what a quorum peer does when it cannot bind its election port: in a surefire fork that ended every test in it
            org.apache.zookeeper.util.ServiceUtils.requestSystemExit(14);

            assertThat(ZooKeeperExits.requests()).isEqualTo(before + 1);
            assertThat(member.failure()).as("a member waited for is reported failed, naming why, not waited for a minute")
                    .isNotNull().hasMessageContaining("code 14").hasMessageContaining("could not be bound");
        } finally {
            member.close();
        }
    }

    @Test
    void anEnsembleKeepsServingWhenOneMemberIsKilledAndTheMemberRejoinsWithTheData() throws Exception {
        try (ZooKeeperEnsemble ensemble = ZooKeeperEnsemble.launch(3)) {
            String[] members = ensemble.connectString().split(",");
            assertThat(members).hasSize(3);
            for (int i = 0; i < 3; i++) {
                assertThat(ensemble.isServing(i)).as("member %d serves", i).isTrue();
            }
            write(connect(ensemble.connectString()), "/before", "1");

            ensemble.kill(0);
            assertThat(ensemble.isServing(0)).isFalse();
            Await.until(SOON, "the two remaining members form a quorum", () -> ensemble.isServing(1) && ensemble.isServing(2));
            ZooKeeper survivor = connect(members[1] + "," + members[2]);
            write(survivor, "/during", "2");

            ensemble.restart(0);
            assertThat(ensemble.isServing(0)).isTrue();
            ZooKeeper rejoined = connect(members[0]);
            Await.succeeds(SOON, "the restarted member has what was written while it was down", () -> {
                rejoined.sync("/", (rc, path, ctx) -> { }, null);
                return read(rejoined, "/during");
            });
            assertThat(read(rejoined, "/before")).isEqualTo("1");
        }
    }
}
