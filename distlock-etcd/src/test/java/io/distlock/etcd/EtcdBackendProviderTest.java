package io.distlock.etcd;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.LockClients;
import io.distlock.testkit.BackendProviderContract;
import io.distlock.testkit.EtcdClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The etcd provider on a real etcd server, and the targets it refuses. */
class EtcdBackendProviderTest extends BackendProviderContract {
    @RegisterExtension
    static final EtcdClusterExtension etcd = new EtcdClusterExtension();

    @Override
    protected String providerId() {
        return "etcd";
    }

    @Override
    protected String registryTarget() {
        return "etcd://" + etcd.target().replace("http://", "");
    }

    @Test
    void aTargetWithAPathOrWithoutAPortIsRefusedNamingTheProblem() {
        assertThatThrownBy(() -> LockClients.open("etcd://127.0.0.1:1/locks")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no path");
        assertThatThrownBy(() -> LockClients.open("etcd://u:secret@127.0.0.1")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("has no port").hasMessageNotContaining("secret");
    }
}
