package io.distlock.etcd;

import io.distlock.LockClient;
import io.distlock.testkit.EtcdClusterExtension;
import io.distlock.testkit.LockClientFactory;
import io.distlock.testkit.SessionLockContract;
import io.distlock.testkit.TestDeployment;
import java.time.Duration;
import java.util.OptionalLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The whole session-lock contract (base, lease and session tiers) against a real etcd server process. */
class EtcdLockContractTest extends SessionLockContract {
    /** Its plain lock is a queue: waiters are granted in arrival order. */
    @Override
    protected boolean fair() {
        return true;
    }

    @RegisterExtension
    static final EtcdClusterExtension etcd = new EtcdClusterExtension();
    private static RawEtcd raw;

    @BeforeAll
    static void connectRaw() {
        raw = new RawEtcd(etcd.target());
    }

    @AfterAll
    static void closeRaw() {
        if (raw != null) {
            raw.close();
        }
    }

    @Override
    protected Class<? extends LockClientFactory> factoryClass() {
        return EtcdClientFactory.class;
    }

    @Override
    protected TestDeployment deployment() {
        return etcd;
    }

    @Override
    protected Duration longLease() {
        return EtcdClientFactory.SESSION_TTL; // leases never outlast the session
    }

    @Override
    protected boolean tellsForceUnlocks() {
        return false; // a deleted key looks the same whoever deleted it
    }

    @Override
    protected void expireSession(LockClient client) {
        raw.revoke(((EtcdLockClient) client).sessionLease());
    }

    @Override
    protected boolean lockedInBackend(String name) {
        return !raw.queue(name).isEmpty();
    }

    /**
     * Request messages the server received, from its own metrics (every gRPC call and stream message): the few
     * clients of a test add their session keep-alives, one per third of the 4 s TTL each.
     */
    @Override
    protected OptionalLong serverCalls() {
        return OptionalLong.of(etcd.cluster().requestsReceived());
    }
}
