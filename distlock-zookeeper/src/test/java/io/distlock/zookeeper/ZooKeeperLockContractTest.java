package io.distlock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.LockClient;
import io.distlock.LockClients;
import io.distlock.testkit.BackendContract;
import io.distlock.testkit.BackendHooks;
import io.distlock.zookeeper.testing.ZooKeeperServerExtension;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Every tier of the contract, every kind, against an in-process ZooKeeper server that clients reach through a proxy,
 * so that the tests can freeze it.
 */
class ZooKeeperLockContractTest extends BackendContract {
    @RegisterExtension
    static final ZooKeeperServerExtension zooKeeper = ZooKeeperServerExtension.behindProxy();
    private static final ZooKeeperHooks HOOKS = new ZooKeeperHooks(zooKeeper);

    @AfterAll
    static void closeRaw() {
        HOOKS.close();
    }

    @Override
    protected BackendHooks hooks() {
        return HOOKS;
    }

    /** What a {@code zk://} target sets besides where the servers are. */
    @Nested
    class Targets {
        @Test
        void aTargetsSessionTimeoutIsTheSessionsTimeout() throws Exception {
            try (LockClient client = LockClients.open("zk://" + zooKeeper.target() + "?sessionTimeout=3s&connectionTimeout=2s")) {
                client.getLock("targets-" + System.nanoTime()).acquire(Duration.ofSeconds(20)).close();
                // the server grants 0.5 s to 5 s (2 to 20 ticks): the default 15 s would have been cut to 5 s
                assertThat(((ZooKeeperLockClient) client).curator().getZookeeperClient().getZooKeeper().getSessionTimeout()).isEqualTo(3000);
            }
        }
    }
}
