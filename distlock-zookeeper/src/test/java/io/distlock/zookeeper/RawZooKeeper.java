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

    /** Returns the queue nodes of a lock of any kind ({@code root} "" for plain locks), in queue order, as their names read. */
    List<String> children(String root, String name) {
        try {
            return LockNodes.queue(curator.getChildren().forPath(LockNodes.parent(root, name)), QueueRule.allPrefixes());
        } catch (KeeperException.NoNodeException e) {
            return List.of();
        } catch (Exception e) {
            throw new IllegalStateException("cannot read the queue of lock '" + name + "'", e);
        }
    }

    /** Returns the holders of a read-write lock by the rules of both sides: the writer's node, if it holds, and the readers'. */
    List<String> readWriteHolders(String name) {
        List<String> queue = children("/~rw", name);
        List<String> holders = new java.util.ArrayList<>(QueueRule.WRITE.holders(queue, 0));
        holders.addAll(QueueRule.READ.holders(queue, 0));
        return holders;
    }

    /** Returns whether a writer holds the read-write lock {@code name}. */
    boolean writerHeld(String name) {
        return !QueueRule.WRITE.holders(children("/~rw", name), 0).isEmpty();
    }

    /** Returns the holders of the semaphore {@code name}: the first nodes of its queue, as many as the permits stored with it. */
    List<String> permitHolders(String name) {
        try {
            byte[] data = curator.getData().forPath(LockNodes.parent("/~sem", name));
            int permits = data == null || data.length == 0 ? 0 : Integer.parseInt(new String(data, java.nio.charset.StandardCharsets.US_ASCII));
            return QueueRule.PERMIT.holders(children("/~sem", name), permits);
        } catch (KeeperException.NoNodeException e) {
            return List.of();
        } catch (Exception e) {
            throw new IllegalStateException("cannot read the semaphore '" + name + "'", e);
        }
    }

    /**
     * Returns the queue nodes of {@code name} (and of names that start with it) under every kind's root, described:
     * a node of a closed client's session that the server still keeps. The queues' parents are container nodes,
     * which the server deletes itself once empty, and are not listed.
     */
    List<String> leftovers(String name) {
        List<String> left = new java.util.ArrayList<>();
        for (String root : List.of("", "/~fair", "/~rw", "/~sem")) {
            try {
                String encodedName = LockNodes.parent(name).substring(1);
                for (String parent : curator.getChildren().forPath(root.isEmpty() ? "/" : root)) {
                    if (parent.startsWith(encodedName)) {
                        String path = root + "/" + parent;
                        curator.getChildren().forPath(path).forEach(child -> left.add(path + "/" + child));
                    }
                }
            } catch (KeeperException.NoNodeException e) {
                // no lock of this kind yet
            } catch (Exception e) {
                throw new IllegalStateException("cannot read the nodes of lock '" + name + "'", e);
            }
        }
        return left;
    }

    /** Deletes a node of a lock's queue, as another client (or an operator) would. */
    void delete(String root, String name, String child) {
        try {
            curator.delete().forPath(LockNodes.parent(root, name) + "/" + child);
        } catch (Exception e) {
            throw new IllegalStateException("cannot delete " + child + " of lock '" + name + "'", e);
        }
    }

    @Override
    public void close() {
        curator.close();
    }
}
