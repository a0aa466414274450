package io.distlock.zookeeper;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import org.apache.zookeeper.KeeperException;

/** Reads the lock nodes directly, bypassing distlock, for raw-state assertions. */
final class RawZooKeeper implements AutoCloseable {
    private final CuratorFramework curator;

    RawZooKeeper(String connectString) {
        curator = CuratorFrameworkFactory.builder().connectString(connectString).namespace(ZooKeeperLockClient.DEFAULT_NAMESPACE)
                .sessionTimeoutMs(4000).connectionTimeoutMs(2000).retryPolicy(new RetryNTimes(20, 250)).build();
        curator.start();
        try {
            curator.blockUntilConnected(20, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Returns the lock nodes of a lock in queue order (empty if none or no parent). */
    List<String> queue(String name) {
        try {
            return LockNodes.queue(curator.getChildren().forPath(LockNodes.parent(name)));
        } catch (KeeperException.NoNodeException e) {
            return List.of();
        } catch (Exception e) {
            throw new IllegalStateException("cannot read the queue of lock '" + name + "'", e);
        }
    }

    /** Returns the holders of a lock of another kind ({@code /~fair}, {@code /~rw}, {@code /~sem}) as its rule sees them. */
    List<String> holders(String root, QueueRule rule, String name, int permits) {
        try {
            List<String> prefixes = QueueRule.allPrefixes();
            return rule.holders(LockNodes.queue(curator.getChildren().forPath(LockNodes.parent(root, name)), prefixes), permits);
        } catch (KeeperException.NoNodeException e) {
            return List.of();
        } catch (Exception e) {
            throw new IllegalStateException("cannot read the queue of lock '" + name + "'", e);
        }
    }

    @Override
    public void close() {
        curator.close();
    }
}
