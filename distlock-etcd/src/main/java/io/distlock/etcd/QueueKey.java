package io.distlock.etcd;

import io.distlock.etcd.EtcdLockBackend.QueueEntry;
import io.distlock.spi.AcquireResult;
import io.distlock.spi.QueueingAcquire.QueueTicket;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import io.etcd.jetcd.watch.WatchResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/** A waiter's key in a lock's queue, and its one watch on the key created just before it. */
final class QueueKey implements QueueTicket {
    /*
     * The join already told whether the key is the oldest (then the first check answers at once). After
     * that, one turn check is one read-only transaction: does my key still exist, and which key of this lock
     * has the highest create revision below mine? None: my turn (the token is my create revision). One:
     * watch it for deletion from the transaction's revision + 1, so a delete between the read and the
     * watch is still delivered (etcd replays history from that revision). A watch that errs (compacted,
     * cancelled) or completes also wakes the waiter, which reads again; the engine's fallback poll covers
     * a watch that never fires. A key keeps at most one watch: asking again while the same predecessor is
     * ahead only swaps the callback.
     */
    private final EtcdLockBackend backend;
    private final String name;
    private final String ownerId;
    private final QueueEntry entry;
    private final AtomicBoolean left = new AtomicBoolean();
    private final ReentrantLock lock = new ReentrantLock();
    private volatile @Nullable Runnable onTurn;
    private @Nullable ByteSequence watching;
    private Watch.@Nullable Watcher watcher;
    private final AtomicBoolean heldAtJoin;

    /** {@code heldAtJoin}: the join's transaction found this key the oldest of the lock, so the first turn check needs no read. */
    QueueKey(EtcdLockBackend backend, String name, String ownerId, QueueEntry entry, boolean heldAtJoin) {
        this.backend = backend;
        this.name = name;
        this.ownerId = ownerId;
        this.entry = entry;
        this.heldAtJoin = new AtomicBoolean(heldAtJoin);
    }

    @Override
    public CompletableFuture<AcquireResult> checkTurn(Runnable onMaybeTurn) {
        onTurn = onMaybeTurn;
        if (heldAtJoin.getAndSet(false)) {
            return CompletableFuture.completedFuture(AcquireResult.granted(entry.revision()));
        }
        GetOption mine = GetOption.builder().withKeysOnly(true).build();
        GetOption predecessor = GetOption.builder().isPrefix(true).withKeysOnly(true).withMaxCreateRevision(entry.revision() - 1)
                .withSortField(GetOption.SortTarget.CREATE).withSortOrder(GetOption.SortOrder.DESCEND).withLimit(1).build();
        return backend.bounded("acquire", name, () -> backend.retried(attempt -> backend.kv().txn()
                .Then(Op.get(entry.key(), mine), Op.get(backend.keys().prefix(name), predecessor))
                .commit()
                .thenCompose(response -> {
                    GetResponse own = response.getGetResponses().get(0);
                    if (own.getKvs().stream().noneMatch(kv -> kv.getCreateRevision() == entry.revision())) {
                        return sessionAskedThenVanished();
                    }
                    GetResponse ahead = response.getGetResponses().get(1);
                    if (ahead.getKvs().isEmpty()) {
                        stopWatching();
                        return CompletableFuture.completedFuture(AcquireResult.granted(entry.revision()));
                    }
                    watch(ahead.getKvs().get(0).getKey(), response.getHeader().getRevision() + 1);
                    return CompletableFuture.completedFuture(AcquireResult.busy(Duration.ZERO));
                })));
    }

    /**
     * Fails the check because the key is gone; first asks etcd whether the session lease it was on is gone
     * too (a revoke, an expiry the keep-alives have not seen yet), so that the session is known lost - and the
     * engine joins again on a new one - before this failure reaches it.
     */
    private CompletableFuture<AcquireResult> sessionAskedThenVanished() {
        return backend.session().keepAlive(entry.lease()).handle((alive, failure) -> {
            throw backend.vanished(name);
        });
    }

    private void watch(ByteSequence predecessor, long fromRevision) {
        lock.lock();
        try {
            if (left.get() || predecessor.equals(watching)) {
                return; // already watched: the newest callback is called when it fires
            }
            stopWatching();
            WatchOption option = WatchOption.builder().withRevision(fromRevision).withNoPut(true).build();
            watcher = backend.client().getWatchClient().watch(predecessor, option, new Watch.Listener() {
                @Override
                public void onNext(WatchResponse response) {
                    if (response.getEvents().stream().anyMatch(event -> event.getEventType() == WatchEvent.EventType.DELETE)) {
                        predecessorChanged();
                    }
                }

                @Override
                public void onError(Throwable failure) {
                    predecessorChanged(); // compacted or cancelled: read again rather than trust the watch
                }

                @Override
                public void onCompleted() {
                    predecessorChanged();
                }
            });
            watching = predecessor;
        } finally {
            lock.unlock();
        }
    }

    private void predecessorChanged() {
        lock.lock();
        try {
            closeWatcher();
        } finally {
            lock.unlock();
        }
        Runnable callback = onTurn;
        if (callback != null) {
            callback.run();
        }
    }

    private void stopWatching() {
        lock.lock();
        try {
            closeWatcher();
        } finally {
            lock.unlock();
        }
    }

    private void closeWatcher() {
        Watch.Watcher current = watcher;
        watcher = null;
        watching = null;
        if (current != null) {
            try {
                current.close();
            } catch (RuntimeException ignored) {
                // the client is closing: its watches go with it
            }
        }
    }

    /** Returns whether this key holds a watch now (for tests). */
    boolean isWatching() {
        lock.lock();
        try {
            return watcher != null;
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
        backend.forget(ownerId, entry);
        return backend.deleteInBackground(entry.key(), entry.revision(), entry.lease());
    }
}
