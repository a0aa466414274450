package io.distlock.zookeeper;

import io.distlock.LockKind;
import io.distlock.testkit.KindsOfOneNameContract;
import io.distlock.testkit.LockClientFactory;
import io.distlock.testkit.TestDeployment;
import io.distlock.testkit.ZooKeeperServerExtension;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The lock kinds of one name are separate locks, with separate nodes, on an in-process ZooKeeper. */
class ZooKeeperKindsOfOneNameTest extends KindsOfOneNameContract {
    @RegisterExtension
    static final ZooKeeperServerExtension zooKeeper = ZooKeeperServerExtension.behindProxy();
    private static RawZooKeeper raw;

    @BeforeAll
    static void connectRaw() {
        raw = new RawZooKeeper(zooKeeper.directTarget());
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
    protected Duration longLease() {
        return ZooKeeperClientFactory.SESSION_TIMEOUT;
    }

    @Override
    protected boolean heldInBackend(String name, LockKind kind) {
        return switch (kind) {
            case LOCK -> !raw.queue(name).isEmpty();
            case FAIR_LOCK -> !raw.holders("/~fair", QueueRule.EXCLUSIVE, name, 0).isEmpty();
            case READ_WRITE_LOCK -> !raw.holders("/~rw", QueueRule.READ, name, 0).isEmpty() || !raw.holders("/~rw", QueueRule.WRITE, name, 0).isEmpty();
            case SEMAPHORE -> !raw.holders("/~sem", QueueRule.PERMIT, name, Integer.MAX_VALUE).isEmpty();
        };
    }
}
