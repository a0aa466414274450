package io.distlock.zookeeper;

import io.distlock.LockClient;
import io.distlock.servers.ZooKeeperEnsemble;
import io.distlock.testkit.LockClientFactory;
import io.distlock.testkit.SessionLockContract;
import io.distlock.testkit.TestDeployment;
import io.distlock.testkit.ZooKeeperServerExtension;
import java.time.Duration;
import java.util.OptionalLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The whole session-lock contract (base, lease and session tiers) against an in-process ZooKeeper
 * server that clients reach through a proxy, so that the tests can freeze it.
 */
class ZooKeeperLockContractTest extends SessionLockContract {
    /** Its plain lock is a queue: waiters are granted in arrival order. */
    @Override
    protected boolean fair() {
        return true;
    }

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
        return ZooKeeperClientFactory.SESSION_TIMEOUT; // leases never outlast the session
    }

    @Override
    protected boolean tellsForceUnlocks() {
        return false; // a deleted node looks the same whoever deleted it
    }

    @Override
    protected void expireSession(LockClient client) {
        try {
            ZooKeeperEnsemble.expireSession(((ZooKeeperLockClient) client).curator().getZookeeperClient().getZooKeeper());
        } catch (Exception e) {
            throw new IllegalStateException("cannot expire the session of " + client, e);
        }
    }

    /** A node holds the lock: the first of its queue (not merely a queue with someone in it). */
    @Override
    protected boolean lockedInBackend(String name) {
        return !raw.holders("", QueueRule.EXCLUSIVE, name, 0).isEmpty();
    }

    /**
     * Packets the server received, from its own statistics: requests and every client's pings (a client pings
     * once per third of its 4 s session while idle, so the few clients of a test add a handful in 2 s).
     */
    @Override
    protected OptionalLong serverCalls() {
        return OptionalLong.of(zooKeeper.server().packetsReceived());
    }
}
