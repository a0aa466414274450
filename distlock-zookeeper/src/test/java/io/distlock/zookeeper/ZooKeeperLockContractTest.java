package io.distlock.zookeeper;

import io.distlock.servers.BackendControl;
import io.distlock.testkit.LockClientFactory;
import io.distlock.testkit.LockContract;
import io.distlock.servers.ZooKeeperServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The whole lock contract against an in-process ZooKeeper server. */
class ZooKeeperLockContractTest extends LockContract {
    private static ZooKeeperServer server;
    private static RawZooKeeper raw;

    @BeforeAll
    static void startServer() {
        server = ZooKeeperServer.launch();
        raw = new RawZooKeeper(server.connectString());
    }

    @AfterAll
    static void stopServer() {
        raw.close();
        server.close();
    }

    @Override
    protected Class<? extends LockClientFactory> factoryClass() {
        return ZooKeeperClientFactory.class;
    }

    @Override
    protected String target() {
        return server.connectString();
    }

    @Override
    protected BackendControl backend() {
        return server;
    }

    @Override
    protected boolean lockedInBackend(String name) {
        return !raw.queue(name).isEmpty();
    }
}
