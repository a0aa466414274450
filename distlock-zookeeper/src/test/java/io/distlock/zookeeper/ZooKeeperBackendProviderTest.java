package io.distlock.zookeeper;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.LockClients;
import io.distlock.testkit.BackendProviderContract;
import io.distlock.testkit.ZooKeeperServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The ZooKeeper provider on an in-process ZooKeeper, and the targets it refuses. */
class ZooKeeperBackendProviderTest extends BackendProviderContract {
    @RegisterExtension
    static final ZooKeeperServerExtension zooKeeper = new ZooKeeperServerExtension();

    @Override
    protected String providerId() {
        return "zookeeper";
    }

    @Override
    protected String registryTarget() {
        return "zk://" + zooKeeper.target();
    }

    @Test
    void aTargetWithoutAPortOrWithAUserButNoPasswordIsRefusedNamingTheProblem() {
        assertThatThrownBy(() -> LockClients.open("zk://127.0.0.1")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("has no port").hasMessageContaining("zk://[user:password@]host:port");
        assertThatThrownBy(() -> LockClients.open("zk://alice@127.0.0.1:1")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("without a password");
        assertThatThrownBy(() -> LockClients.open("zk://127.0.0.1:1", "not a namespace")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("namespace");
    }
}
