package io.distlock.zookeeper;

import io.distlock.LockException;
import io.distlock.spi.AcquireResult;
import io.distlock.spi.LockBackend;
import io.distlock.spi.ReadWriteStorage;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * Read-write locks on ZooKeeper: {@code read-} and {@code write-} nodes in one queue per name under
 * {@code /~rw} (see {@link QueueRule}), and the downgrade: a {@code dread-} reader node, created while the
 * writer holds and named after it, which holds from its creation and keeps every other writer out until it is
 * released (its own writer still holds beside it).
 */
final class ZooKeeperReadWrite implements ReadWriteStorage {
    private final ZooKeeperLockBackend readers;
    private final ZooKeeperLockBackend writers;

    ZooKeeperReadWrite(ZooKeeperLockBackend readers, ZooKeeperLockBackend writers) {
        this.readers = readers;
        this.writers = writers;
    }

    @Override
    public LockBackend readers() {
        return readers;
    }

    @Override
    public LockBackend writers() {
        return writers;
    }

    /**
     * One ZooKeeper transaction deletes the holders read from one listing of the queue, the writer's node and the
     * readers', and marks the parent with this request's id. If any of them is gone by then (it left, so someone may
     * have been granted since the listing), the transaction changes nothing and the queue is read again: no holder
     * granted after the listing is ended, and none is left holding beside another. If the transaction fails because it
     * had already run (its answer lost, Curator sent it again after the reconnect), the parent carries this request's
     * id and the first run's answer is returned: a replay ends nobody granted after it.
     */
    @Override
    public CompletableFuture<Integer> forceReleaseAll(String name) {
        byte[] request = ("force-unlock:" + UUID.randomUUID()).getBytes(StandardCharsets.US_ASCII);
        return readers.call("forceUnlock", name, () -> {
            CuratorFramework curator = readers.curator();
            String parent = readers.parent(name);
            long deadline = System.nanoTime() + readers.operationTimeout().toNanos();
            while (true) {
                List<String> queue = readers.queueOf(name);
                Set<String> holders = new LinkedHashSet<>(QueueRule.readWriteHolders(queue));
                if (holders.isEmpty()) {
                    return 0;
                }
                readers.seams().forceUnlockRead.run();
                List<CuratorOp> ops = new ArrayList<>();
                for (String holder : holders) {
                    ops.add(curator.transactionOp().delete().forPath(parent + "/" + holder));
                }
                ops.add(curator.transactionOp().setData().forPath(parent, request));
                try {
                    curator.transaction().forOperations(ops);
                    return holders.size();
                } catch (KeeperException.NoNodeException changed) {
                    if (ranBefore(curator, parent, request)) {
                        return holders.size();
                    }
                    if (System.nanoTime() - deadline > 0) {
                        throw new LockException("force-unlock of read-write lock '" + name + "': its holders changed under every try for "
                                + readers.operationTimeout());
                    }
                }
            }
        });
    }

    /** Returns whether the parent carries {@code request}: a transaction of it ran (a gone parent: nothing is left to end). */
    private static boolean ranBefore(CuratorFramework curator, String parent, byte[] request) throws Exception {
        try {
            return Arrays.equals(curator.getData().forPath(parent), request);
        } catch (KeeperException.NoNodeException gone) {
            return true;
        }
    }

    @Override
    public CompletableFuture<AcquireResult> downgrade(String name, String writerOwnerId, String readerOwnerId, Duration leaseTime) {
        String writerPath = writers.nodeOf(writerOwnerId);
        if (writerPath == null) {
            return CompletableFuture.completedFuture(AcquireResult.busy(Duration.ZERO));
        }
        return readers.call("acquire", name, () -> {
            String path = null;
            try {
                path = readers.curator().create().creatingParentContainersIfNeeded().withProtection()
                        .withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
                        .forPath(readers.parent(name) + "/" + QueueRule.downgradePrefix(LockNodes.lastSegment(writerPath)) + readerOwnerId + "-");
                readers.seams().created.run();
                return downgraded(name, writerPath, readerOwnerId, path);
            } catch (Exception failed) {
                readers.abandon(name, readerOwnerId, path); // a reader node nobody releases would keep writers out
                throw failed;
            }
        });
    }

    /** Grants the downgrade's reader node at {@code path}, or deletes it again if the writer no longer holds. */
    private AcquireResult downgraded(String name, String writerPath, String readerOwnerId, String path) throws Exception {
        // created first, checked second: a writer that looks after the creation sees this reader and waits for it,
        // and if our writer is no longer the holder, the reader goes again and the downgrade is refused
        List<String> queue = readers.queueOf(name);
        if (queue.isEmpty() || !queue.get(0).equals(LockNodes.lastSegment(writerPath))) {
            readers.curator().delete().guaranteed().forPath(path);
            return AcquireResult.busy(Duration.ZERO);
        }
        Stat stat = readers.curator().setData().forPath(path, new byte[0]);
        readers.remember(readerOwnerId, path);
        return AcquireResult.granted(stat.getMzxid());
    }
}
