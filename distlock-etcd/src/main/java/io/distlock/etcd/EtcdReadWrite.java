package io.distlock.etcd;

import io.distlock.etcd.EtcdLockBackend.QueueEntry;
import io.distlock.spi.AcquireResult;
import io.distlock.spi.LockBackend;
import io.distlock.spi.ReadWriteStorage;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Read-write locks on etcd: readers' and writers' keys in one queue per name under {@code <namespace>/~rw/} (see
 * {@link QueueRule}), the atomic force unlock of every holder, and the downgrade: a reader key
 * {@code d<writer's create revision>-...}, created only if the writer's key still exists, in the same transaction.
 * It holds from its creation and keeps every other writer out until it is released; its own writer still holds beside it.
 */
final class EtcdReadWrite implements ReadWriteStorage {
    private final EtcdLockBackend readers;
    private final EtcdLockBackend writers;

    EtcdReadWrite(EtcdLockBackend readers, EtcdLockBackend writers) {
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

    /** One transaction deletes the writer and every reader that hold at one read of the queue (see {@code endHolders}). */
    @Override
    public CompletableFuture<Integer> forceReleaseAll(String name) {
        return readers.endHolders(name, QueueRule::readWriteHolders);
    }

    @Override
    public CompletableFuture<AcquireResult> downgrade(String name, String writerOwnerId, String readerOwnerId, Duration leaseTime) {
        QueueEntry writer = writers.entry(writerOwnerId);
        if (writer == null) {
            return CompletableFuture.completedFuture(AcquireResult.busy(Duration.ZERO));
        }
        ByteSequence key = readers.keys().key(name, LockKeys.downgradedRole(writer.revision()), writer.lease(), readerOwnerId);
        ByteSequence madeBy = readers.joinValue(readerOwnerId);
        // the reader is created only while the writer's key exists (and so while it holds: a writer's key is deleted when
        // its hold ends); a retry after an ambiguous error finds its own key instead of making a second one
        CompletableFuture<AcquireResult> attempt = readers.retried(number -> readers.kv().txn()
                .If(new Cmp(writer.key(), Cmp.Op.EQUAL, CmpTarget.createRevision(writer.revision())),
                        new Cmp(key, Cmp.Op.EQUAL, CmpTarget.createRevision(0)))
                .Then(Op.put(key, madeBy, PutOption.builder().withLeaseId(writer.lease()).build()))
                .Else(Op.get(key, GetOption.builder().withKeysOnly(true).build()))
                .commit()
                .thenApply(response -> {
                    long revision;
                    if (response.isSucceeded()) {
                        revision = response.getHeader().getRevision();
                    } else {
                        List<KeyValue> made = response.getGetResponses().get(0).getKvs();
                        if (made.isEmpty()) {
                            return AcquireResult.busy(Duration.ZERO); // the writer no longer holds: refused, nothing made
                        }
                        revision = made.get(0).getCreateRevision(); // an earlier try made it, while the writer held
                    }
                    // made on a retry: an earlier try may land after the reader's release, while the writer still holds,
                    // and make the key again; it is swept by this downgrade's value (as a join's key is, keyGone)
                    readers.remember(readerOwnerId, new QueueEntry(key, revision, writer.lease(), null, number > 0 ? madeBy : null));
                    return AcquireResult.granted(revision);
                }));
        CompletableFuture<AcquireResult> result = readers.bounded("acquire", name, () -> attempt);
        result.whenComplete((granted, failure) -> {
            if (failure != null) {
                // unanswered: the reader may be made yet, and nobody would release it (writers would wait for the session)
                attempt.whenComplete((late, lateFailure) -> {
                    readers.forget(readerOwnerId);
                    readers.deleteInBackground(key, 0, writer.lease());
                });
                readers.deleteNowAndLater(key, madeBy, writer.lease());
            }
        });
        return result;
    }
}
