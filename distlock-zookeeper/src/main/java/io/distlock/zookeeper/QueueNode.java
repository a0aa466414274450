package io.distlock.zookeeper;

import io.distlock.LockException;
import io.distlock.spi.AcquireResult;
import io.distlock.spi.QueuePolicy;
import io.distlock.spi.QueueingAcquire.QueueTicket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.curator.framework.api.CuratorWatcher;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher.WatcherType;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;

/** A waiter's node in a lock's queue, and its one watch on the node ahead of it. */
final class QueueNode implements QueueTicket {
    /*
     * Watch hygiene (Curator's own rule for lock recipes): the predecessor is watched with getData, so
     * a predecessor that is already gone throws NoNode and leaves no watch behind (an exists-watch on a
     * deleted node would wait for a creation that never comes). A node keeps at most one watch: asking
     * again while the same predecessor is ahead only swaps the callback, and the watch is removed when
     * the predecessor changes, the turn comes, or the waiter leaves.
     */
    /** Marks a watch on a parent's children (semaphores) in {@code watching}. */
    private static final String CHILDREN = "children:";

    private final ZooKeeperLockBackend backend;
    private final String name;
    private final String ownerId;
    private final String path;
    private final AtomicBoolean left = new AtomicBoolean();
    private final ReentrantLock lock = new ReentrantLock();
    private final CuratorWatcher watcher = event -> predecessorChanged();
    private volatile @Nullable Runnable onTurn;
    private @Nullable String watching;

    QueueNode(ZooKeeperLockBackend backend, String name, String ownerId, String path) {
        this.backend = backend;
        this.name = name;
        this.ownerId = ownerId;
        this.path = path;
    }

    @Override
    public CompletableFuture<AcquireResult> checkTurn(Runnable onMaybeTurn) {
        onTurn = onMaybeTurn;
        return backend.call("acquire", name, () -> {
            boolean watchesChildren = backend.rule().watchesChildren();
            List<String> queue = watchesChildren ? watchedQueue() : backend.queueOf(name);
            int position = queue.indexOf(LockNodes.lastSegment(path));
            if (position < 0) {
                throw vanished();
            }
            QueuePolicy.Turn<String> turn = backend.rule().turn(queue, position, backend.permits());
            if (turn.granted()) {
                stopWatching();
                return AcquireResult.granted(token());
            }
            backend.seams().waiting.run();
            if (!watchesChildren) {
                watch(backend.parent(name) + "/" + turn.waitFor());
            }
            return AcquireResult.busy(Duration.ZERO);
        });
    }

    /**
     * Reads the queue and watches the parent's children in one call, so that any change after this reading fires the
     * watch: reading first and watching second missed a release in between (the waiter slept to its fallback poll).
     * Asking again with the same watcher adds no second watch.
     */
    private List<String> watchedQueue() throws Exception {
        String parent = backend.parent(name);
        lock.lock();
        try {
            if (watching != null && !watching.equals(CHILDREN + parent)) {
                stopWatching();
            }
            try {
                List<String> children = backend.curator().getChildren().usingWatcher(watcher).forPath(parent);
                watching = CHILDREN + parent;
                return backend.queueOf(children);
            } catch (KeeperException.NoNodeException gone) {
                return List.of(); // our node is gone with its parent
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Returns the fencing token of this node's grant: its czxid where grants follow creation order (plain, fair,
     * permits); for read-write locks, where a downgraded reader is granted out of order, the zxid of a write
     * made now, at the grant.
     */
    private long token() throws Exception {
        Stat stat = backend.rule().tokenAtGrant() ? backend.curator().setData().forPath(path, new byte[0])
                : backend.curator().checkExists().forPath(path);
        if (stat == null) {
            throw vanished();
        }
        return backend.rule().tokenAtGrant() ? stat.getMzxid() : stat.getCzxid();
    }

    /** Watches {@code predecessor}: a getData watch, so that one already gone leaves no watch behind. */
    private void watch(String predecessor) throws Exception {
        String target = predecessor;
        lock.lock();
        try {
            if (target.equals(watching)) {
                return; // already watched: the newest callback is called when it fires
            }
            stopWatching();
            try {
                backend.curator().getData().usingWatcher(watcher).forPath(predecessor);
                watching = target;
            } catch (KeeperException.NoNodeException gone) {
                Runnable callback = onTurn;
                if (callback != null) {
                    callback.run(); // it left between reading the queue and watching: look again
                }
            }
        } finally {
            lock.unlock();
        }
    }

    private void predecessorChanged() {
        lock.lock();
        try {
            watching = null; // a fired watch is gone
        } finally {
            lock.unlock();
        }
        Runnable callback = onTurn;
        if (callback != null) {
            callback.run();
        }
    }

    /** Removes the watch, if any, on this client's side (the server drops its half with the node or session). */
    private void stopWatching() {
        lock.lock();
        try {
            if (watching != null) {
                try {
                    boolean children = watching.startsWith(CHILDREN);
                    backend.curator().watchers().remove(watcher).ofType(children ? WatcherType.Children : WatcherType.Data).locally()
                            .inBackground().forPath(children ? watching.substring(CHILDREN.length()) : watching);
                } catch (Exception ignored) {
                    // the watch fires once at most; a stale callback only makes the waiter look again
                }
                watching = null;
            }
        } finally {
            lock.unlock();
        }
    }

    /** Returns whether this node holds a watch now (for tests). */
    boolean isWatching() {
        lock.lock();
        try {
            return watching != null;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public CompletableFuture<Void> leave() {
        if (!left.compareAndSet(false, true)) {
            return CompletableFuture.completedFuture(null);
        }
        onTurn = null;
        stopWatching();
        backend.forget(ownerId, path);
        return backend.delete(path, "leave", name).thenApply(deleted -> null);
    }

    private LockException vanished() {
        return new LockException("the queue node of lock '" + name + "' vanished (session expired or node deleted)");
    }
}
