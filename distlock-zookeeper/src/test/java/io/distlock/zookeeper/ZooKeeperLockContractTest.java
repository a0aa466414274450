package io.distlock.zookeeper;

import io.distlock.testkit.LockClientFactory;
import io.distlock.testkit.LockContract;
import io.distlock.testkit.TestDeployment;
import io.distlock.testkit.ZooKeeperServerExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The whole lock contract against an in-process ZooKeeper server. */
class ZooKeeperLockContractTest extends LockContract {
    @RegisterExtension
    static final ZooKeeperServerExtension zooKeeper = new ZooKeeperServerExtension();
    private static RawZooKeeper raw;

    @BeforeAll
    static void connectRaw() {
        raw = new RawZooKeeper(zooKeeper.target());
    }

    @AfterAll
    static void closeRaw() {
        raw.close();
    }

    @Override
    protected Class<? extends LockClientFactory> factoryClass() {
        return ZooKeeperClientFactory.class;
    }

    @Override
    protected TestDeployment deployment() {
        return zooKeeper;
    }

    @Override
    protected java.time.Duration longLease() {
        return java.time.Duration.ofSeconds(4); // the clients' session timeout
    }

    @Override
    protected boolean lockedInBackend(String name) {
        return !raw.queue(name).isEmpty();
    }
}
