package io.distlock.etcd;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.LockClients;
import org.junit.jupiter.api.Test;

/** The targets the etcd provider refuses (the provider on a real server: the registry tier of {@link EtcdLockContractTest}). */
class EtcdBackendProviderTest {
    @Test
    void aTargetWithAPathOrWithoutAPortIsRefusedNamingTheProblem() {
        assertThatThrownBy(() -> LockClients.open("etcd://127.0.0.1:1/locks")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no path");
        assertThatThrownBy(() -> LockClients.open("etcd://u:secret@127.0.0.1")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("has no port").hasMessageNotContaining("secret");
        assertThatThrownBy(() -> LockClients.open("etcd://127.0.0.1:1?ttl=3s")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown parameter 'ttl'").hasMessageContaining("sessionTtl");
    }
}
