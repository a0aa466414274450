package io.distlock.zookeeper;

import io.distlock.LockException;
import io.distlock.LockOptions;
import io.distlock.spi.BatchRenewal;
import io.distlock.spi.LockBackend;
import io.distlock.spi.LockKinds;
import io.distlock.spi.OwnerCheck;
import io.distlock.spi.QueueingAcquire;
import io.distlock.spi.ReadWriteStorage;
import io.distlock.spi.RefusedUse;
import io.distlock.spi.SemaphoreStorage;
import io.distlock.spi.SessionEvents;
import io.distlock.spi.StateCounts;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
final class ZooKeeperLockBackend implements LockBackend, QueueingAcquire, BatchRenewal, SessionEvents, LockKinds, StateCounts {
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
    /** The node of each owner id with a node in some queue; one map for the client and all its kinds (owner ids are unique). */
    private final ConcurrentHashMap<String, String> nodeByOwner;
    /** Whether this is a view for another kind, sharing the base backend's {@link #nodeByOwner} (which the base reports). */
    private final boolean view;
    private final Seams seams;
    private final ThreadPoolExecutor io;
    private volatile @Nullable ConnectionStateListener sessionListener;
    /** Where this kind's queues live ("" for plain locks) and what decides a turn; see {@link QueueRule}. */
    private final String root;
    private final QueueRule rule;
    private final int permits;
    private final List<String> prefixes;

    ZooKeeperLockBackend(CuratorFramework curator, boolean ownsCurator, String ensemble, Duration timeout, boolean suspendedIsLost) {
        this.curator = curator;
        this.ownsCurator = ownsCurator;
        this.ensemble = ensemble;
        this.timeout = timeout;
        this.suspendedIsLost = suspendedIsLost;
        this.errors = new ZooKeeperErrors(ensemble);
        this.nodeByOwner = new ConcurrentHashMap<>();
        this.view = false;
        this.seams = new Seams();
        this.root = "";
        this.rule = QueueRule.EXCLUSIVE;
        this.permits = 0;
        this.prefixes = List.of(LockNodes.NODE_PREFIX);
        AtomicInteger threads = new AtomicInteger();
        this.io = new ThreadPoolExecutor(IO_THREADS, IO_THREADS, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), runnable -> {
            Thread thread = new Thread(runnable, "distlock-zookeeper-io-" + threads.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
        this.io.allowCoreThreadTimeOut(true);
    }

    /** A view for another kind of lock: the same connection, session and IO pool; queues under {@code root}. */
    private ZooKeeperLockBackend(ZooKeeperLockBackend base, String root, QueueRule rule, int permits, List<String> prefixes) {
        this.curator = base.curator;
        this.ownsCurator = false;
        this.ensemble = base.ensemble;
        this.timeout = base.timeout;
        this.suspendedIsLost = base.suspendedIsLost;
        this.errors = base.errors;
        this.nodeByOwner = base.nodeByOwner;
        this.view = true;
        this.seams = base.seams;
        this.io = base.io;
        this.root = root;
        this.rule = rule;
        this.permits = permits;
        this.prefixes = prefixes;
    }

    @Override
    public LockBackend fairLocks() {
        return new ZooKeeperLockBackend(this, "/~fair", QueueRule.EXCLUSIVE, 0, List.of(LockNodes.NODE_PREFIX));
    }

    @Override
    public ReadWriteStorage readWriteLocks() {
        List<String> prefixes = List.of(QueueRule.READ.prefix, QueueRule.WRITE.prefix, QueueRule.DOWNGRADE_PREFIX);
        return new ZooKeeperReadWrite(new ZooKeeperLockBackend(this, "/~rw", QueueRule.READ, 0, prefixes),
                new ZooKeeperLockBackend(this, "/~rw", QueueRule.WRITE, 0, prefixes));
    }

    @Override
    public SemaphoreStorage semaphores() {
        ZooKeeperLockBackend base = this;
        return new SemaphoreStorage() {
            @Override
            public LockBackend withPermits(int count) {
                return new ZooKeeperLockBackend(base, "/~sem", QueueRule.PERMIT, count, List.of(QueueRule.PERMIT.prefix));
            }

            @Override
            public CompletableFuture<Integer> availablePermits(String name, int count) {
                ZooKeeperLockBackend view = (ZooKeeperLockBackend) withPermits(count);
                return view.call("availablePermits", name, () -> Math.max(0, view.storedPermits(name, count) - view.queueOf(name).size()));
            }
        };
    }

    QueueRule rule() {
        return rule;
    }

    int permits() {
        return permits;
    }

    /** Returns the parent node of {@code name}'s queue in this kind. */
    String parent(String name) {
        return LockNodes.parent(root, name);
    }

    /** Records that {@code ownerId} holds the node at {@code path} (a downgrade made it outside enqueue). */
    void remember(String ownerId, String path) {
        nodeByOwner.put(ownerId, path);
    }

    /** Returns the node of {@code ownerId}, if it has one in this kind. */
    @Nullable String nodeOf(String ownerId) {
        return nodeByOwner.get(ownerId);
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
            String path = null;
            try {
                path = curator.create().creatingParentContainersIfNeeded().withProtection()
                        .withMode(CreateMode.EPHEMERAL_SEQUENTIAL).forPath(parent(name) + "/" + rule.prefix + ownerId + "-");
                seams.created.run();
                if (rule == QueueRule.PERMIT) {
                    checkPermits(name, path);
                }
                nodeByOwner.put(ownerId, path);
                return new QueueNode(this, name, ownerId, path);
            } catch (RefusedUse refused) {
                throw refused; // its node is deleted already
            } catch (Exception failed) {
                abandon(name, ownerId, path);
                throw failed;
            }
        });
    }

    /**
     * Removes the node of a join that failed (nobody will ever leave it, and it would hold up the queue until the session
     * ends): by its path if the create answered, otherwise by its owner id among the parent's children, since a create
     * that failed may still have made the node (Curator retries creates after a connection loss).
     */
    void abandon(String name, String ownerId, @Nullable String path) {
        if (path != null) {
            delete(path, "leave", name);
            return;
        }
        String mark = "-" + ownerId + "-"; // in every kind's node name: <prefix ending in '-'><owner id>-<sequence>
        CompletableFuture.runAsync(() -> {
            // tries for longer than the sessions servers allow by default (20 ticks): a session that ends takes the node with it
            long deadline = System.nanoTime() + Math.max(timeout.toNanos(), TimeUnit.SECONDS.toNanos(60));
            while (System.nanoTime() - deadline < 0) {
                try {
                    for (String child : curator.getChildren().forPath(parent(name))) {
                        if (LockNodes.bare(child).contains(mark)) {
                            delete(parent(name) + "/" + child, "leave", name);
                        }
                    }
                    return;
                } catch (KeeperException.NoNodeException none) {
                    return;
                } catch (Exception notYet) {
                    java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(250));
                }
            }
        }, io).exceptionally(rejected -> null); // a closed client's session ends, and its nodes with it
    }

    @Override
    public CompletableFuture<OwnerCheck> renew(String name, String ownerId, Duration leaseTime) {
        return call("renewal", name, () -> {
            String path = nodeByOwner.get(ownerId);
            if (path == null) {
                return OwnerCheck.MISSING;
            }
            // a sequential node never comes back, and the engine releases nothing for a lease lost this way: forget it
            return renewNow(path, ownerId);
        });
    }

    /** The most nodes one batch renewal reads: the answer (about 100 bytes a node) stays far below jute.maxbuffer (1 MiB). */
    static final int NODES_PER_READ = 500;
    /** Whether the server refused a multi-read (a server before 3.6): then every renewal checks one node. */
    private volatile boolean noMultiRead;

    @Override
    public int maxBatchSize() {
        return noMultiRead ? 1 : NODES_PER_READ;
    }

    /**
     * Renews many leases with one multi-read (ZooKeeper 3.6+) of their nodes: each node is read on its own (a missing
     * one does not fail the others), with what a single {@link #renew} reads (whether the node exists, on the server this
     * client is connected to). A node that is gone is {@link OwnerCheck#MISSING} and forgotten, as in renew; another
     * error of one read leaves that request unanswered (null), and the watchdog tries it again. A server that does not
     * know multi-reads makes the client fall back to one check per node for good (logged once).
     */
    @Override
    public CompletableFuture<List<@Nullable OwnerCheck>> renewAll(List<RenewalRequest> requests) {
        if (requests.isEmpty()) {
            return CompletableFuture.completedFuture(List.of());
        }
        String operation = BatchRenewal.operation(requests);
        return call(operation, requests.get(0).name(), () -> {
            List<@Nullable OwnerCheck> results = new ArrayList<>(requests.size());
            List<org.apache.zookeeper.Op> reads = new ArrayList<>(requests.size());
            List<Integer> readIndexes = new ArrayList<>(requests.size());
            String[] paths = new String[requests.size()];
            for (int i = 0; i < requests.size(); i++) {
                String path = nodeByOwner.get(requests.get(i).ownerId());
                results.add(path == null ? OwnerCheck.MISSING : null);
                if (path != null) {
                    paths[i] = path;
                    readIndexes.add(i);
                    reads.add(org.apache.zookeeper.Op.getData(org.apache.curator.utils.ZKPaths.fixForNamespace(curator.getNamespace(), path)));
                }
            }
            if (reads.isEmpty()) {
                return results;
            }
            List<org.apache.zookeeper.OpResult> answers = null;
            if (!noMultiRead) {
                try {
                    answers = multiRead(reads);
                } catch (KeeperException.UnimplementedException old) {
                    noMultiRead = true;
                    org.slf4j.LoggerFactory.getLogger(ZooKeeperLockBackend.class).warn("distlock-zookeeper: {} does not know multi-reads (a "
                            + "server before ZooKeeper 3.6): every renewal now checks one node, one round trip each", ensemble);
                }
            }
            if (answers == null) {
                for (int index : readIndexes) {
                    results.set(index, renewNow(paths[index], requests.get(index).ownerId()));
                }
                return results;
            }
            for (int k = 0; k < answers.size(); k++) {
                int index = readIndexes.get(k);
                org.apache.zookeeper.OpResult answer = answers.get(k);
                if (answer instanceof org.apache.zookeeper.OpResult.GetDataResult) {
                    results.set(index, OwnerCheck.OWNER);
                } else if (answer instanceof org.apache.zookeeper.OpResult.ErrorResult error
                        && error.getErr() == KeeperException.Code.NONODE.intValue()) {
                    // a sequential node never comes back, and the engine releases nothing for a lease lost this way: forget it
                    nodeByOwner.remove(requests.get(index).ownerId(), paths[index]);
                    results.set(index, OwnerCheck.MISSING);
                } else if (answer instanceof org.apache.zookeeper.OpResult.ErrorResult error
                        && error.getErr() == KeeperException.Code.NOAUTH.intValue()) {
                    // nodes under an application's ACL without READ for us: an existence check needs no permission
                    results.set(index, renewNow(paths[index], requests.get(index).ownerId()));
                }
            }
            return results;
        });
    }

    /**
     * Sends {@code reads} as multi-reads of at most {@link #PATH_CHARS_PER_READ} path characters each (500 long names,
     * URL-encoded, could pass the 1 MiB jute.maxbuffer), one after another; returns their answers in order.
     */
    private List<org.apache.zookeeper.OpResult> multiRead(List<org.apache.zookeeper.Op> reads) throws Exception {
        org.apache.zookeeper.ZooKeeper zooKeeper = curator.getZookeeperClient().getZooKeeper();
        List<org.apache.zookeeper.OpResult> answers = new ArrayList<>(reads.size());
        int from = 0;
        while (from < reads.size()) {
            int to = from;
            long chars = 0;
            while (to < reads.size() && (to == from || chars + reads.get(to).getPath().length() <= PATH_CHARS_PER_READ)) {
                chars += reads.get(to).getPath().length();
                to++;
            }
            answers.addAll(zooKeeper.multi(reads.subList(from, to)));
            from = to;
        }
        return answers;
    }

    /** The most path characters one multi-read carries (each answer is about 100 bytes more than its path). */
    static final int PATH_CHARS_PER_READ = 200_000;

    /** One renewal's check of {@code path}, on the calling (IO) thread. */
    private OwnerCheck renewNow(String path, String ownerId) throws Exception {
        if (curator.checkExists().forPath(path) != null) {
            return OwnerCheck.OWNER;
        }
        nodeByOwner.remove(ownerId, path);
        return OwnerCheck.MISSING;
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
        return call("forceUnlock", name, () -> rule.holders(queueOf(name), permits)).thenCompose(holders -> {
            List<CompletableFuture<Boolean>> deletes = holders.stream().map(child -> delete(parent(name) + "/" + child, "forceUnlock", name)).toList();
            return CompletableFuture.allOf(deletes.toArray(CompletableFuture<?>[]::new))
                    .thenApply(done -> deletes.stream().anyMatch(CompletableFuture::join));
        });
    }

    @Override
    public CompletableFuture<Boolean> isLocked(String name) {
        return call("isLocked", name, () -> !rule.holders(queueOf(name), permits).isEmpty());
    }

    /**
     * Keeps one number of permits per semaphore: the parent node's data holds it while the semaphore is in use; a node
     * asking with another number is deleted again and refused, unless it is alone in the queue (then its number is the
     * semaphore's). Every join writes the number it read back with the version it read: a join that agreed with a number
     * and one that changed it (alone) cannot both succeed, so clients of two numbers never share a queue, each judging
     * turns by its own number (a third holder of two permits).
     */
    private void checkPermits(String name, String path) throws Exception {
        String parent = parent(name);
        byte[] mine = Integer.toString(permits).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        long deadline = System.nanoTime() + timeout.toNanos();
        for (int attempt = 0; ; attempt++) {
            org.apache.zookeeper.data.Stat stat = new org.apache.zookeeper.data.Stat();
            byte[] current = curator.getData().storingStatIn(stat).forPath(parent);
            String stored = current == null ? "" : new String(current, java.nio.charset.StandardCharsets.US_ASCII);
            boolean alone = queueOf(name).size() == 1;
            seams.permitsJudged.run();
            if (!stored.isEmpty() && !stored.equals(Integer.toString(permits)) && !alone) {
                curator.delete().guaranteed().forPath(path);
                throw RefusedUse.permits("acquire", name, describe(), stored, permits);
            }
            try {
                curator.setData().withVersion(stat.getVersion()).forPath(parent, mine);
                return;
            } catch (KeeperException.BadVersionException raced) {
                if (System.nanoTime() - deadline > 0) {
                    throw new LockException("acquire of semaphore '" + name + "' on " + describe()
                            + ": its number of permits kept changing under every try for " + timeout, raced);
                }
                // another join confirmed or set the number meanwhile: read again, after a random pause that grows with the
                // tries (up to 16 ms), so that joins arriving together do not keep colliding (seen: one join losing every
                // round for a whole operation timeout to clients that kept joining, on a loaded machine)
                Thread.sleep(java.util.concurrent.ThreadLocalRandom.current().nextLong(1L << Math.min(attempt + 1, 4)) + 1);
            }
        }
    }

    /** Returns the number of permits the semaphore {@code name} is in use with, or {@code asked} if it is not in use. */
    private int storedPermits(String name, int asked) throws Exception {
        try {
            byte[] data = curator.getData().forPath(parent(name));
            return data == null || data.length == 0 ? asked : Integer.parseInt(new String(data, java.nio.charset.StandardCharsets.US_ASCII));
        } catch (KeeperException.NoNodeException | NumberFormatException unused) {
            return asked;
        }
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
            return queueOf(curator.getChildren().forPath(parent(name)));
        } catch (KeeperException.NoNodeException e) {
            return List.of();
        }
    }

    /** Returns the queue among a parent's {@code children}, in order. */
    List<String> queueOf(List<String> children) {
        return LockNodes.queue(children, prefixes);
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
                } catch (RefusedUse e) {
                    result.completeExceptionally(e); // a misuse, not a ZooKeeper failure: it reaches the caller as it is
                } catch (Exception e) {
                    result.completeExceptionally(errors.translate(e, operation, name));
                }
            });
        } catch (RuntimeException rejected) {
            result.completeExceptionally(new LockException(operation + " of lock '" + name + "': the client is closed", rejected));
        }
        return result;
    }

    /** Waits for a call made by {@link #call} (for tools that block, such as the inspector), at most the operation timeout. */
    <T> T await(CompletableFuture<T> future, String operation, String name) {
        try {
            return future.get(timeout.toMillis() + 250, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockException(operation + " of '" + name + "' was interrupted", e);
        } catch (java.util.concurrent.ExecutionException e) {
            throw e.getCause() instanceof RuntimeException runtime ? runtime : errors.translate(e.getCause() == null ? e : e.getCause(), operation, name);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new io.distlock.BackendUnavailableException(operation + " of '" + name + "' got no answer from ZooKeeper at " + ensemble
                    + " within " + timeout, e);
        }
    }

    /** Returns how many owner ids this client remembers a node for, over all kinds (for tests: it must not grow). */
    int rememberedNodes() {
        return nodeByOwner.size();
    }

    Seams seams() {
        return seams;
    }

    /** Returns how many IO threads run now (for tests: the pool is bounded). */
    int ioThreads() {
        return io.getPoolSize();
    }

    @Override
    public void close() {
        if (!root.isEmpty()) {
            return; // a kind's view: the connection and pool are the plain backend's
        }
        ConnectionStateListener states = sessionListener;
        if (states != null) {
            curator.getConnectionStateListenable().removeListener(states);
        }
        io.shutdownNow();
        if (ownsCurator) {
            curator.close();
        }
    }

    /**
     * Points where another client may act in the middle of one of ours, for tests that drive that interleaving; no-ops
     * otherwise. Shared by the client's kinds.
     */
    static final class Seams {
        /** Runs right after a queue node was created, before the rest of its call. */
        volatile Runnable created = () -> { };
        /** Runs when a semaphore join has read the stored number of permits and whether it is alone, before it acts on them. */
        volatile Runnable permitsJudged = () -> { };
        /** Runs when a turn check found its node waiting, before the waiter sleeps. */
        volatile Runnable waiting = () -> { };
        /** Runs when a read-write force-unlock has read the holders, before it ends them. */
        volatile Runnable forceUnlockRead = () -> { };
    }

    /** A blocking Curator call. */
    @FunctionalInterface
    interface BlockingCall<T> {
        T run() throws Exception;
    }

    @Override
    public Map<String, Integer> stateCounts() {
        // the kinds' views share the base's map: counted once, by the base, however many kinds are in use
        return view ? Map.of() : Map.of("queue nodes by owner", nodeByOwner.size());
    }
}
