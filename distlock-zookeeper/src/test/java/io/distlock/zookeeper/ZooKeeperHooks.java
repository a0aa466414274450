package io.distlock.zookeeper;

import io.distlock.LockClient;
import io.distlock.LockKind;
import io.distlock.testkit.BackendHooks;
import io.distlock.testkit.LockClientFactory;
import io.distlock.testkit.TestDeployment;
import io.distlock.zookeeper.testing.ZooKeeperEnsemble;
import io.distlock.zookeeper.testing.ZooKeeperServerExtension;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The contract's hooks for ZooKeeper: every kind, sessions and the inspector; "held" read from the nodes by each
 * kind's rule (a waiting node does not count). Its raw client connects straight to the server, past the proxy the
 * contract's clients use; close it after the class.
 */
final class ZooKeeperHooks extends BackendHooks implements AutoCloseable {
    private final ZooKeeperServerExtension zooKeeper;
    private @Nullable RawZooKeeper raw;
    private @Nullable String rawTarget;

    ZooKeeperHooks(ZooKeeperServerExtension zooKeeper) {
        this.zooKeeper = zooKeeper;
    }

    private synchronized RawZooKeeper raw() {
        String target = zooKeeper.directTarget();
        if (raw == null || !target.equals(rawTarget)) {
            close();
            raw = new RawZooKeeper(target);
            rawTarget = target;
        }
        return raw;
    }

    @Override
    public Class<? extends LockClientFactory> factoryClass() {
        return ZooKeeperClientFactory.class;
    }

    @Override
    public TestDeployment deployment() {
        return zooKeeper;
    }

    @Override
    public Set<LockKind> kinds() {
        return EnumSet.allOf(LockKind.class);
    }

    @Override
    public boolean heldInBackend(LockKind kind, String name) {
        List<String> holders = switch (kind) {
            case LOCK -> raw().holders("", QueueRule.EXCLUSIVE, name, 0);
            case FAIR_LOCK -> raw().holders("/~fair", QueueRule.EXCLUSIVE, name, 0);
            case READ_WRITE_LOCK -> raw().readWriteHolders(name);
            case SEMAPHORE -> raw().permitHolders(name);
        };
        return !holders.isEmpty();
    }

    @Override
    public boolean writeHeldInBackend(String name) {
        return raw().writerHeld(name);
    }

    @Override
    public List<String> leftoversInBackend(String name) {
        return raw().leftovers(name);
    }

    /**
     * Packets the server received, from its own statistics: requests and every client's pings (a client pings once per
     * third of its 4 s session while idle, so the few clients of a test add a handful in 2 s).
     */
    @Override
    public OptionalLong serverCalls() {
        return OptionalLong.of(zooKeeper.server().packetsReceived());
    }

    /** The plain lock is a queue: waiters are granted in arrival order. */
    @Override
    public boolean plainLockIsFair() {
        return true;
    }

    /** A deleted node looks the same whoever deleted it. */
    @Override
    public boolean tellsForceUnlocks() {
        return false;
    }

    /** Leases never outlast the session. */
    @Override
    public Duration longLease() {
        return ZooKeeperClientFactory.SESSION_TIMEOUT;
    }

    @Override
    public boolean hasSessions() {
        return true;
    }

    @Override
    public void expireSession(LockClient client) {
        try {
            ZooKeeperEnsemble.expireSession(((ZooKeeperLockClient) client).curator().getZookeeperClient().getZooKeeper());
        } catch (Exception e) {
            throw new IllegalStateException("cannot expire the session of " + client, e);
        }
    }

    @Override
    public boolean hasInspector() {
        return true;
    }

    @Override
    public String providerId() {
        return "zookeeper";
    }

    @Override
    public Optional<String> registryTarget() {
        return Optional.of("zk://" + zooKeeper.target());
    }

    @Override
    public synchronized void close() {
        if (raw != null) {
            raw.close();
            raw = null;
        }
    }
}
