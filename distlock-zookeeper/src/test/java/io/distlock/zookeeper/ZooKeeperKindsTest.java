package io.distlock.zookeeper;

import io.distlock.LockClient;
import io.distlock.servers.ZooKeeperEnsemble;
import io.distlock.testkit.LockClientFactory;
import io.distlock.LockKind;
import io.distlock.testkit.ReadWriteLockContract;
import io.distlock.testkit.SemaphoreContract;
import io.distlock.testkit.SessionLockContract;
import io.distlock.testkit.TestDeployment;
import io.distlock.testkit.ZooKeeperServerExtension;
import java.time.Duration;
import java.util.OptionalLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Fair locks and the write side of read-write locks (the whole session-lock contract each), read-write locks and
 * semaphores on an in-process ZooKeeper behind a proxy. "Locked" in the raw-state hooks means a node holds by its
 * kind's rule, not that the queue has nodes.
 */
class ZooKeeperKindsTest {
    @RegisterExtension
    static final ZooKeeperServerExtension zooKeeper = ZooKeeperServerExtension.behindProxy();
    private static RawZooKeeper raw;
    private static String rawTarget;

    /** Returns a raw client of the server in use: the extension starts one per nested class. */
    private static synchronized RawZooKeeper raw() {
        if (raw == null || !zooKeeper.directTarget().equals(rawTarget)) {
            if (raw != null) {
                raw.close();
            }
            rawTarget = zooKeeper.directTarget();
            raw = new RawZooKeeper(rawTarget);
        }
        return raw;
    }

    @AfterAll
    static synchronized void closeRaw() {
        if (raw != null) {
            raw.close();
            raw = null;
        }
    }

    /** The session-lock contract on this ensemble, for a kind whose "locked" each tier says. */
    abstract class SessionTier extends SessionLockContract {
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
        protected boolean tellsForceUnlocks() {
            return false;
        }

        @Override
        protected void expireSession(LockClient client) {
            try {
                ZooKeeperEnsemble.expireSession(((ZooKeeperLockClient) client).curator().getZookeeperClient().getZooKeeper());
            } catch (Exception e) {
                throw new IllegalStateException("cannot expire the session of " + client, e);
            }
        }

        /** Packets the server received (requests and pings), as in {@link ZooKeeperLockContractTest}. */
        @Override
        protected OptionalLong serverCalls() {
            return OptionalLong.of(zooKeeper.server().packetsReceived());
        }
    }

    @Nested
    class Fair extends SessionTier {
        @Override
        protected LockKind kind() {
            return LockKind.FAIR_LOCK;
        }

        @Override
        protected boolean lockedInBackend(String name) {
            return !raw().holders("/~fair", QueueRule.EXCLUSIVE, name, 0).isEmpty();
        }
    }

    /** The write side of read-write locks: the whole session-lock contract, with "locked" meaning a writer holds. */
    @Nested
    class Write extends SessionTier {
        @Override
        protected LockKind kind() {
            return LockKind.READ_WRITE_LOCK;
        }

        @Override
        protected boolean lockedInBackend(String name) {
            return raw().writerHeld(name);
        }
    }

    @Nested
    class ReadWrite extends ReadWriteLockContract {
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

        /** A writer or a reader holds, by the rules of each side (a waiting node does not count). */
        @Override
        protected boolean lockedInBackend(String name) {
            return !raw().readWriteHolders(name).isEmpty();
        }
    }

    @Nested
    class Semaphore extends SemaphoreContract {
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

        /** A permit is held: a node among the first of the queue, as many as the permits stored with the semaphore. */
        @Override
        protected boolean lockedInBackend(String name) {
            return !raw().permitHolders(name).isEmpty();
        }
    }
}
