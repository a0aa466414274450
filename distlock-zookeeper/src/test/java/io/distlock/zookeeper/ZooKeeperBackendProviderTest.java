package io.distlock.zookeeper;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.LockClients;
import org.junit.jupiter.api.Test;

/** The targets the ZooKeeper provider refuses (the provider on a real server: the registry tier of {@link ZooKeeperLockContractTest}). */
class ZooKeeperBackendProviderTest {
    @Test
    void aTargetWithoutAPortOrWithAUserButNoPasswordIsRefusedNamingTheProblem() {
        assertThatThrownBy(() -> LockClients.open("zk://127.0.0.1")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("has no port").hasMessageContaining("zk://[user:password@]host:port");
        assertThatThrownBy(() -> LockClients.open("zk://alice@127.0.0.1:1")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("without a password");
        assertThatThrownBy(() -> LockClients.open("zk://127.0.0.1:1", "not a namespace")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("namespace");
        assertThatThrownBy(() -> LockClients.open("zk://127.0.0.1:1?sessionTimeout=soon")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'sessionTimeout' must be a positive duration");
    }
}
