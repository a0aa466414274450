package io.distlock.etcd;

import io.distlock.etcd.EtcdLockBackend.QueueEntry;
import io.distlock.spi.AcquireResult;
import io.distlock.spi.QueueingAcquire.QueueTicket;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import io.etcd.jetcd.watch.WatchResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/** A waiter's key in a lock's queue, and its one watch on what it must outlive. */
final class QueueKey implements QueueTicket {
    /*
     * The join already told whether the key holds (then the first check answers at once). After that, one
     * turn check is one read-only transaction: does my key still exist, and what must go before I hold (the
     * kind's QueueRule)? Plain and fair locks: the key with the highest create revision below mine. Readers:
     * the newest older writer. Writers: the key just ahead, or when none, a reader downgraded by another
     * writer. Permits: the keys ahead, counted up to the number of permits. Nothing: my turn (the token is my
     * create revision, or the revision of a write at the grant for readers and writers). Otherwise watch that
     * key - a permit waiter the name's whole prefix, since any key ahead may go first - for deletion. The watch
     * starts at etcd's current revision, and its creation is confirmed with that revision: if it is the read's, no
     * delete fell between the read and the watch; if it is later, one may have, and the waiter reads again (keeping
     * the watch, which sees every delete after its creation). A watch asked to start at the read's revision + 1 would
     * need no second read, but etcd serves a watch that starts in the past ("unsynced") from a loop that runs every
     * 100 ms: on a busy name that was a wait of up to 100 ms per watch (the read-write benchmark of issue 30: 156
     * cycles/s, a p50 of 88 ms; measured with a count of watches and of the time from each watch to its event, 58 ms
     * on average). A watch that errs (compacted, cancelled) or completes also wakes the waiter, which reads again; the engine's fallback poll covers a watch that never fires. A key keeps at most one
     * watch: asking again while the same key is ahead only swaps the callback.
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
        QueueRule rule = backend.rule();
        ByteSequence prefix = backend.keys().prefix(name);
        List<Op> reads = new ArrayList<>();
        reads.add(Op.get(entry.key(), GetOption.builder().withKeysOnly(true).build()));
        switch (rule) {
            case EXCLUSIVE -> reads.add(Op.get(prefix, newestOlder(1)));
            case READ -> reads.add(Op.get(backend.keys().rolePrefix(name, QueueRule.WRITE.role), newestOlder(1)));
            case WRITE -> {
                reads.add(Op.get(prefix, newestOlder(1)));
                reads.add(Op.get(backend.keys().rolePrefix(name, QueueRule.DOWNGRADED), GetOption.builder().isPrefix(true).withKeysOnly(true).build()));
            }
            case PERMIT -> reads.add(Op.get(prefix, newestOlder(backend.permits())));
        }
        return backend.bounded("acquire", name, () -> backend.retried(attempt -> backend.kv().txn()
                .Then(reads.toArray(Op[]::new))
                .commit()
                .thenCompose(response -> {
                    List<GetResponse> got = response.getGetResponses();
                    if (got.get(0).getKvs().stream().noneMatch(kv -> kv.getCreateRevision() == entry.revision())) {
                        return sessionAskedThenVanished();
                    }
                    long from = response.getHeader().getRevision() + 1; // the first revision the read did not see
                    List<KeyValue> ahead = got.get(1).getKvs();
                    if (rule == QueueRule.PERMIT) {
                        if (ahead.size() < backend.permits()) {
                            return grant();
                        }
                        watch(prefix, true, from - 1); // any of the keys ahead may go first
                        return CompletableFuture.completedFuture(AcquireResult.busy(Duration.ZERO));
                    }
                    if (ahead.isEmpty() && rule == QueueRule.WRITE) {
                        // oldest; a reader downgraded by another writer (younger than us, made while that writer held) keeps us out
                        ahead = got.get(2).getKvs().stream().filter(key -> QueueRule.downgradedByAnother(key, entry.revision())).limit(1).toList();
                    }
                    if (ahead.isEmpty()) {
                        return grant();
                    }
                    watch(ahead.get(0).getKey(), false, from - 1);
                    return CompletableFuture.completedFuture(AcquireResult.busy(Duration.ZERO));
                })));
    }

    /** The keys of a range created before this key, newest first, at most {@code limit}. */
    private GetOption newestOlder(int limit) {
        return GetOption.builder().isPrefix(true).withKeysOnly(true).withMaxCreateRevision(entry.revision() - 1)
                .withSortField(GetOption.SortTarget.CREATE).withSortOrder(GetOption.SortOrder.DESCEND).withLimit(limit).build();
    }

    /**
     * Grants the turn. The fencing token is the key's create revision, or for readers and writers (see
     * {@link QueueRule#tokenAtGrant}) the revision of a write of the key now, compared on its create revision: a key
     * that vanished since the check is not granted.
     */
    private CompletableFuture<AcquireResult> grant() {
        stopWatching();
        if (!backend.rule().tokenAtGrant()) {
            return CompletableFuture.completedFuture(AcquireResult.granted(entry.revision()));
        }
        return backend.kv().txn()
                .If(new Cmp(entry.key(), Cmp.Op.EQUAL, CmpTarget.createRevision(entry.revision())))
                .Then(Op.put(entry.key(), backend.value(), PutOption.builder().withLeaseId(entry.lease()).build()))
                .commit()
                .thenCompose(response -> response.isSucceeded()
                        ? CompletableFuture.completedFuture(AcquireResult.granted(response.getHeader().getRevision()))
                        : sessionAskedThenVanished());
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

    /** Watches {@code predecessor} (or every key under it, if {@code prefix}) for deletions from {@code fromRevision} on. */
    /** Watches {@code predecessor} (a key, or a prefix) for deletions after {@code readRevision}, the revision the turn check read. */
    private void watch(ByteSequence predecessor, boolean prefix, long readRevision) {
        lock.lock();
        try {
            if (left.get() || predecessor.equals(watching)) {
                return; // already watched: the newest callback is called when it fires
            }
            stopWatching();
            WatchOption option = WatchOption.builder().withNoPut(true).isPrefix(prefix).withCreateNotify(true).build();
            watcher = backend.client().getWatchClient().watch(predecessor, option, new Watch.Listener() {
                @Override
                public void onNext(WatchResponse response) {
                    if (response.isCreatedNotify()) {
                        if (response.getHeader().getRevision() != readRevision) {
                            readAgain(); // something changed between the read and the watch: perhaps a delete it will not see
                        }
                        return;
                    }
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

    /** Wakes the waiter to read again, keeping the watch: asked again for the same key, it watches on. */
    private void readAgain() {
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
        return backend.deleteInBackground(entry.key(), entry.revision(), entry.lease()).whenComplete((done, failure) -> backend.keyGone(entry));
    }
}
