package io.distlock.zookeeper;

import io.distlock.testkit.BackendContract;
import io.distlock.testkit.BackendHooks;
import io.distlock.zookeeper.testing.ZooKeeperServerExtension;
import org.junit.jupiter.api.AfterAll;
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
}
