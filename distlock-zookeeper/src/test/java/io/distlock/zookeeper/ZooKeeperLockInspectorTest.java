package io.distlock.zookeeper;

import io.distlock.testkit.LockClientFactory;
import io.distlock.testkit.LockInspectorContract;
import io.distlock.testkit.TestDeployment;
import io.distlock.testkit.ZooKeeperServerExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The inspector on an in-process ZooKeeper. */
class ZooKeeperLockInspectorTest extends LockInspectorContract {
    @RegisterExtension
    static final ZooKeeperServerExtension zooKeeper = ZooKeeperServerExtension.behindProxy();

    @Override
    protected Class<? extends LockClientFactory> factoryClass() {
        return ZooKeeperClientFactory.class;
    }

    @Override
    protected TestDeployment deployment() {
        return zooKeeper;
    }

    @Override
    protected boolean lockedInBackend(String name) {
        return inspector(newClient()).show(name).stream().anyMatch(state -> !state.holders().isEmpty());
    }
}
