package io.distlock.zookeeper;

import io.distlock.LockException;
import io.distlock.LockOptions;
import io.distlock.spi.LockBackend;
import io.distlock.spi.OwnerCheck;
import io.distlock.spi.QueueingAcquire;
import io.distlock.spi.SessionEvents;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.jspecify.annotations.Nullable;

/**
 * The storage operations on ZooKeeper. Each waiter is an ephemeral-sequential node under the lock's
 * parent; the lowest holds the lock; each waiter watches only its predecessor. The fencing token is
 * the holder node's czxid: zxids only grow, across restarts, leader elections and re-created parents.
 */
final class ZooKeeperLockBackend implements LockBackend, QueueingAcquire, SessionEvents {
    /*
     * Curator's synchronous calls block, so each runs on a bounded pool of IO_THREADS daemon threads
     * (more calls queue; the engine bounds every wait by the operation timeout). Deletes of our own
     * nodes do not use the pool: they are Curator background operations with "guaranteed" delete, which
     * Curator retries after a connection loss, so an abandoned ticket, a release during an outage or the
     * cleanup after close() still frees the queue once the session is back, even when the pool is gone
     * (an application-owned Curator outlives this client).
     *
     * A lease is never trusted longer than the session the server negotiated: a holder paused past its
     * session has lost its node, whatever its lease says (checkOptions).
     */
    static final int IO_THREADS = 8;

    private final CuratorFramework curator;
    private final boolean ownsCurator;
    private final String ensemble;
    private final Duration timeout;
    private final boolean suspendedIsLost;
    private final ZooKeeperErrors errors;
    private final ConcurrentHashMap<String, String> nodeByOwner = new ConcurrentHashMap<>();
    private final ThreadPoolExecutor io;
    private volatile @Nullable ConnectionStateListener sessionListener;

    ZooKeeperLockBackend(CuratorFramework curator, boolean ownsCurator, String ensemble, Duration timeout, boolean suspendedIsLost) {
        this.curator = curator;
        this.ownsCurator = ownsCurator;
        this.ensemble = ensemble;
        this.timeout = timeout;
        this.suspendedIsLost = suspendedIsLost;
        this.errors = new ZooKeeperErrors(ensemble);
        AtomicInteger threads = new AtomicInteger();
        this.io = new ThreadPoolExecutor(IO_THREADS, IO_THREADS, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), runnable -> {
            Thread thread = new Thread(runnable, "distlock-zookeeper-io-" + threads.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
        this.io.allowCoreThreadTimeOut(true);
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

    /** Returns the session timeout the server negotiated (it may lower or raise what the client asked for). */
    Duration negotiatedSessionTimeout() {
        try {
            return Duration.ofMillis(curator.getZookeeperClient().getZooKeeper().getSessionTimeout());
        } catch (Exception e) {
            throw errors.translate(e, "reading the session timeout", "-");
        }
    }

    @Override
    public void checkOptions(LockOptions options) {
        Duration session = negotiatedSessionTimeout();
        if (options.leaseTime().compareTo(session) > 0) {
            throw new IllegalArgumentException("leaseTime " + options.leaseTime() + " is longer than the ZooKeeper session timeout of "
                    + session + " that " + ensemble + " negotiated: a holder paused past its session loses its node while its "
                    + "lease would still look valid. Use a leaseTime of at most " + session + ", or raise the session timeout "
                    + "(the server caps it at 20 ticks by default)");
        }
    }

    @Override
    public CompletableFuture<QueueTicket> enqueue(String name, String ownerId, Duration leaseTime) {
        return call("acquire", name, () -> {
            String path = curator.create().creatingParentContainersIfNeeded().withProtection()
                    .withMode(CreateMode.EPHEMERAL_SEQUENTIAL).forPath(LockNodes.nodePath(name, ownerId));
            nodeByOwner.put(ownerId, path);
            return new QueueNode(this, name, ownerId, path);
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
        String path = nodeByOwner.remove(ownerId);
        if (path == null) {
            return CompletableFuture.completedFuture(OwnerCheck.MISSING);
        }
        return delete(path, "release", name).thenApply(deleted -> deleted ? OwnerCheck.OWNER : OwnerCheck.MISSING);
    }

    @Override
    public CompletableFuture<Boolean> forceRelease(String name) {
        return call("forceUnlock", name, () -> queueOf(name)).thenCompose(queue -> queue.isEmpty()
                ? CompletableFuture.completedFuture(false)
                : delete(LockNodes.parent(name) + "/" + queue.get(0), "forceUnlock", name));
    }

    @Override
    public CompletableFuture<Boolean> isLocked(String name) {
        return call("isLocked", name, () -> !queueOf(name).isEmpty());
    }

    @Override
    public void addSessionListener(SessionListener listener) {
        ConnectionStateListener states = (client, state) -> {
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
        };
        sessionListener = states;
        curator.getConnectionStateListenable().addListener(states);
    }

    List<String> queueOf(String name) throws Exception {
        try {
            return LockNodes.queue(curator.getChildren().forPath(LockNodes.parent(name)));
        } catch (KeeperException.NoNodeException e) {
            return List.of();
        }
    }

    CuratorFramework curator() {
        return curator;
    }

    /** Forgets that {@code ownerId} holds {@code path} (its ticket left the queue). */
    void forget(String ownerId, String path) {
        nodeByOwner.remove(ownerId, path);
    }

    /** Deletes a node of ours in the background, retried by Curator after a connection loss; false if it was gone. */
    CompletableFuture<Boolean> delete(String path, String operation, String name) {
        CompletableFuture<Boolean> deleted = new CompletableFuture<>();
        try {
            curator.delete().guaranteed().inBackground((client, event) -> {
                KeeperException.Code code = KeeperException.Code.get(event.getResultCode());
                if (code == KeeperException.Code.OK) {
                    deleted.complete(true);
                } else if (code == KeeperException.Code.NONODE) {
                    deleted.complete(false);
                } else {
                    deleted.completeExceptionally(errors.translate(KeeperException.create(code, path), operation, name));
                }
            }).forPath(path);
        } catch (Exception e) {
            deleted.completeExceptionally(errors.translate(e, operation, name));
        }
        return deleted;
    }

    /** Runs a blocking Curator call on the IO pool. */
    <T> CompletableFuture<T> call(String operation, String name, BlockingCall<T> body) {
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

    /** Returns how many IO threads run now (for tests: the pool is bounded). */
    int ioThreads() {
        return io.getPoolSize();
    }

    @Override
    public void close() {
        ConnectionStateListener states = sessionListener;
        if (states != null) {
            curator.getConnectionStateListenable().removeListener(states);
        }
        io.shutdownNow();
        if (ownsCurator) {
            curator.close();
        }
    }

    /** A blocking Curator call. */
    @FunctionalInterface
    interface BlockingCall<T> {
        T run() throws Exception;
    }
}
