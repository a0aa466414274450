package io.distlock.zookeeper;

import io.distlock.LockException;
import io.distlock.spi.AcquireResult;
import io.distlock.spi.LockBackend;
import io.distlock.spi.OwnerCheck;
import io.distlock.spi.QueueingAcquire;
import io.distlock.spi.SessionEvents;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorWatcher;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;

/**
 * The storage operations on ZooKeeper. Each waiter is an ephemeral-sequential node under the lock's
 * parent; the lowest holds the lock; each waiter watches only its predecessor. The fencing token is
 * the holder node's czxid: zxids only grow, across restarts, leader elections and re-created parents.
 */
final class ZooKeeperLockBackend implements LockBackend, QueueingAcquire, SessionEvents {
    /*
     * Curator calls block, so each runs on a small pool of daemon threads and completes a future; the
     * engine bounds every wait by the operation timeout. Deletes of our own nodes are "guaranteed":
     * Curator retries them in the background after a connection loss, so an abandoned ticket or a
     * release during an outage still frees the queue once the session is back.
     */
    private final CuratorFramework curator;
    private final boolean ownsCurator;
    private final String ensemble;
    private final Duration timeout;
    private final boolean suspendedIsLost;
    private final ZooKeeperErrors errors;
    private final ConcurrentHashMap<String, String> nodeByOwner = new ConcurrentHashMap<>();
    private final ExecutorService io;

    ZooKeeperLockBackend(CuratorFramework curator, boolean ownsCurator, String ensemble, Duration timeout, boolean suspendedIsLost) {
        this.curator = curator;
        this.ownsCurator = ownsCurator;
        this.ensemble = ensemble;
        this.timeout = timeout;
        this.suspendedIsLost = suspendedIsLost;
        this.errors = new ZooKeeperErrors(ensemble);
        AtomicInteger threads = new AtomicInteger();
        this.io = Executors.newCachedThreadPool(runnable -> {
            Thread thread = new Thread(runnable, "distlock-zookeeper-io-" + threads.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
    }

    @Override
    public String describe() {
        String namespace = curator.getNamespace();
        return "zookeeper://" + ensemble + (namespace == null || namespace.isEmpty() ? "" : "/" + namespace);
    }

    @Override
    public Duration operationTimeout() {
        return timeout;
    }

    @Override
    public CompletableFuture<QueueTicket> enqueue(String name, String ownerId, Duration leaseTime) {
        return call("acquire", name, () -> {
            String path = curator.create().creatingParentContainersIfNeeded().withProtection()
                    .withMode(CreateMode.EPHEMERAL_SEQUENTIAL).forPath(LockNodes.nodePath(name, ownerId));
            nodeByOwner.put(ownerId, path);
            return new Ticket(name, ownerId, path);
        });
    }

    @Override
    public CompletableFuture<OwnerCheck> renew(String name, String ownerId, Duration leaseTime) {
        return call("renewal", name, () -> {
            String path = nodeByOwner.get(ownerId);
            return path != null && curator.checkExists().forPath(path) != null ? OwnerCheck.OWNER : OwnerCheck.MISSING;
        });
    }

    @Override
    public CompletableFuture<OwnerCheck> release(String name, String ownerId) {
        return call("release", name, () -> {
            String path = nodeByOwner.remove(ownerId);
            return path != null && deleteGuaranteed(path) ? OwnerCheck.OWNER : OwnerCheck.MISSING;
        });
    }

    @Override
    public CompletableFuture<Boolean> forceRelease(String name) {
        return call("forceUnlock", name, () -> {
            List<String> queue = queueOf(name);
            return !queue.isEmpty() && deleteGuaranteed(LockNodes.parent(name) + "/" + queue.get(0));
        });
    }

    @Override
    public CompletableFuture<Boolean> isLocked(String name) {
        return call("isLocked", name, () -> !queueOf(name).isEmpty());
    }

    @Override
    public void addSessionListener(SessionListener listener) {
        curator.getConnectionStateListenable().addListener((client, state) -> {
            if (state == ConnectionState.SUSPENDED) {
                if (suspendedIsLost) {
                    listener.lost("the connection to ZooKeeper at " + ensemble + " was suspended");
                } else {
                    listener.suspended();
                }
            } else if (state == ConnectionState.RECONNECTED) {
                listener.reconnected();
            } else if (state == ConnectionState.LOST) {
                listener.lost("the ZooKeeper session at " + ensemble + " was lost (expired or timed out)");
            }
        });
    }

    private List<String> queueOf(String name) throws Exception {
        try {
            return LockNodes.queue(curator.getChildren().forPath(LockNodes.parent(name)));
        } catch (KeeperException.NoNodeException e) {
            return List.of();
        }
    }

    /** Deletes a node, retried in the background after a connection loss; false if it was gone. */
    private boolean deleteGuaranteed(String path) throws Exception {
        try {
            curator.delete().guaranteed().forPath(path);
            return true;
        } catch (KeeperException.NoNodeException e) {
            return false;
        }
    }

    private <T> CompletableFuture<T> call(String operation, String name, BlockingCall<T> body) {
        CompletableFuture<T> result = new CompletableFuture<>();
        try {
            io.execute(() -> {
                try {
                    result.complete(body.run());
                } catch (Exception e) {
                    result.completeExceptionally(errors.translate(e, operation, name));
                }
            });
        } catch (RuntimeException rejected) {
            result.completeExceptionally(new LockException(operation + " of lock '" + name + "': the client is closed", rejected));
        }
        return result;
    }

    @Override
    public void close() {
        io.shutdownNow();
        if (ownsCurator) {
            curator.close();
        }
    }

    @FunctionalInterface
    private interface BlockingCall<T> {
        T run() throws Exception;
    }

    /** A node in a lock's queue. */
    private final class Ticket implements QueueTicket {
        private final String name;
        private final String ownerId;
        private final String path;
        private final AtomicBoolean left = new AtomicBoolean();

        Ticket(String name, String ownerId, String path) {
            this.name = name;
            this.ownerId = ownerId;
            this.path = path;
        }

        @Override
        public CompletableFuture<AcquireResult> checkTurn(Runnable onMaybeTurn) {
            return call("acquire", name, () -> {
                List<String> queue = queueOf(name);
                String mine = LockNodes.lastSegment(path);
                int position = queue.indexOf(mine);
                if (position < 0) {
                    throw new LockException("the queue node of lock '" + name + "' vanished (session expired or node deleted)");
                }
                if (position == 0) {
                    Stat stat = curator.checkExists().forPath(path);
                    if (stat == null) {
                        throw new LockException("the queue node of lock '" + name + "' vanished (session expired or node deleted)");
                    }
                    return AcquireResult.granted(stat.getCzxid());
                }
                String predecessor = LockNodes.parent(name) + "/" + queue.get(position - 1);
                @Nullable Stat ahead = curator.checkExists().usingWatcher((CuratorWatcher) event -> onMaybeTurn.run()).forPath(predecessor);
                if (ahead == null) {
                    onMaybeTurn.run();
                }
                return AcquireResult.busy(Duration.ZERO);
            });
        }

        @Override
        public CompletableFuture<Void> leave() {
            if (!left.compareAndSet(false, true)) {
                return CompletableFuture.completedFuture(null);
            }
            return call("leave", name, () -> {
                nodeByOwner.remove(ownerId, path);
                deleteGuaranteed(path);
                return null;
            });
        }
    }
}
