package io.distlock.zookeeper;

import io.distlock.spi.AcquireResult;
import io.distlock.spi.LockBackend;
import io.distlock.spi.ReadWriteStorage;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.data.Stat;

/**
 * Read-write locks on ZooKeeper: {@code read-} and {@code write-} nodes in one queue per name under
 * {@code /~rw} (see {@link QueueRule}), and the downgrade: a {@code dread-} reader node, created while the
 * writer holds, which holds from its creation and keeps writers out until it is released.
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

    @Override
    public CompletableFuture<Integer> forceReleaseAll(String name) {
        // not yet one atomic step on ZooKeeper: the writer's side, then the readers' (being made atomic, issue 28)
        return writers.forceRelease(name).thenCombine(readers.forceRelease(name), (writer, reader) -> (writer ? 1 : 0) + (reader ? 1 : 0));
    }

    @Override
    public CompletableFuture<AcquireResult> downgrade(String name, String writerOwnerId, String readerOwnerId, Duration leaseTime) {
        String writerPath = writers.nodeOf(writerOwnerId);
        if (writerPath == null) {
            return CompletableFuture.completedFuture(AcquireResult.busy(Duration.ZERO));
        }
        return readers.call("acquire", name, () -> {
            String path = readers.curator().create().creatingParentContainersIfNeeded().withProtection()
                    .withMode(CreateMode.EPHEMERAL_SEQUENTIAL).forPath(readers.parent(name) + "/" + QueueRule.DOWNGRADE_PREFIX + readerOwnerId + "-");
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
        });
    }
}
