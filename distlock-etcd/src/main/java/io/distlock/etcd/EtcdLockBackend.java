package io.distlock.etcd;

import io.distlock.LockException;
import io.distlock.LockOptions;
import io.distlock.spi.LockBackend;
import io.distlock.spi.LockKinds;
import io.distlock.spi.OwnerCheck;
import io.distlock.spi.QueueingAcquire;
import io.distlock.spi.SessionEvents;
import io.distlock.spi.StateCounts;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The storage operations on etcd. Each waiter is a key {@code <namespace>/<name>/<lease>-<owner id>} on
 * the client's session lease, created only if absent; the key with the lowest create revision holds the
 * lock; each waiter watches only the key created just before its own, for its deletion. The fencing token
 * is the holder key's create revision: revisions only grow, across restarts and leader elections.
 */
final class EtcdLockBackend implements LockBackend, QueueingAcquire, SessionEvents, LockKinds, StateCounts {
    /*
     * etcd's own concurrency.Mutex, on KV, Txn and Watch; not the server's Lock RPC, which blocks on the
     * server and cannot be cancelled cleanly.
     *
     * Every request is bounded by the operation timeout here (jetcd has no per-call deadline), so that no
     * cleanup chain waits forever. A key whose create may or may not have happened (the request failed or
     * timed out) is deleted in the background; so is the key of a waiter that gave up and of a release
     * that was not answered, retried until the delete is answered or the session lease it belongs to is
     * gone: a left-over key on a live session would block the queue for as long as the client runs. Deletes compare the create revision, so a retried delete can never remove a
     * newer key (our keys are unique per acquisition anyway).
     *
     * A lease is never trusted longer than the session: renew() sends a keep-alive of the session lease
     * as well as reading the key, so a confirmed renewal at time t means the server keeps the key until
     * t + TTL at least; and leaseTime may not exceed the TTL (checkOptions).
     */
    private static final Logger log = LoggerFactory.getLogger(EtcdLockBackend.class);

    private final Client client;
    private final boolean ownsClient;
    private final KV kv;
    private final LockKeys keys;
    private final EtcdSession session;
    private final EtcdErrors errors;
    private final String endpoints;
    private final Duration timeout;
    private final ScheduledExecutorService scheduler;
    private final ByteSequence ownerValue;
    private final ConcurrentHashMap<String, QueueEntry> entries = new ConcurrentHashMap<>();

    EtcdLockBackend(Client client, boolean ownsClient, LockKeys keys, EtcdSession session, String endpoints, Duration timeout,
            ScheduledExecutorService scheduler, String ownerDescription) {
        this.client = client;
        this.ownsClient = ownsClient;
        this.kv = client.getKVClient();
        this.keys = keys;
        this.session = session;
        this.errors = new EtcdErrors(endpoints);
        this.endpoints = endpoints;
        this.timeout = timeout;
        this.scheduler = scheduler;
        this.ownerValue = LockKeys.bytes(ownerDescription);
    }

    /** Another kind's storage on {@code base}'s connection and session, with its keys under {@code keys}; closing it is the base's. */
    private EtcdLockBackend(EtcdLockBackend base, LockKeys keys) {
        this.client = base.client;
        this.ownsClient = false;
        this.kv = base.kv;
        this.keys = keys;
        this.session = base.session;
        this.errors = base.errors;
        this.endpoints = base.endpoints;
        this.timeout = base.timeout;
        this.scheduler = base.scheduler;
        this.ownerValue = base.ownerValue;
    }

    /**
     * Fair locks: the plain lock's recipe (the oldest key holds; each waiter watches the key just before its own), which
     * is first come, first served already, under keys of their own ({@code <namespace>/~fair/<name>/...}: '~' never
     * starts an encoded name, so no plain lock's prefix covers them).
     */
    @Override
    public LockBackend fairLocks() {
        return new EtcdLockBackend(this, keys.kind("~fair"));
    }

    @Override
    public String describe() {
        return "etcd://" + endpoints.replace("http://", "").replace("https://", "");
    }

    @Override
    public Duration operationTimeout() {
        return timeout;
    }

    @Override
    public void checkOptions(LockOptions options) {
        Duration ttl = session.ttl();
        if (options.leaseTime().compareTo(ttl) > 0) {
            throw new IllegalArgumentException("leaseTime " + options.leaseTime() + " is longer than the etcd session TTL of " + ttl
                    + " granted by " + endpoints + ": a holder paused past its session loses its key while its lease would still "
                    + "look valid. Use a leaseTime of at most " + ttl + ", or raise sessionTtl");
        }
    }

    @Override
    public CompletableFuture<QueueTicket> enqueue(String name, String ownerId, Duration leaseTime) {
        CompletableFuture<QueueTicket> attempt = session.lease().thenCompose(lease -> join(name, ownerId, lease)
                .whenComplete((ticket, failure) -> {
                    if (failure != null && EtcdSession.leaseNotFound(failure)) {
                        // etcd no longer has the session lease (expired, revoked): the session is lost, and the engine,
                        // told so before this join fails, joins again - on a new lease, never this one
                        session.lost(lease, "the etcd server at " + endpoints + " no longer knows the session lease " + Long.toHexString(lease));
                    }
                }));
        CompletableFuture<QueueTicket> result = bounded("acquire", name, () -> attempt);
        result.whenComplete((ticket, failure) -> {
            if (failure != null) {
                // it may still join (a slow or frozen server answers later): leave once it is known to have joined,
                // not before - a delete that overtook the create would leave the key behind
                attempt.thenAccept(QueueTicket::leave);
            }
        });
        return result;
    }

    private CompletableFuture<QueueTicket> join(String name, String ownerId, long lease) {
        ByteSequence key = keys.key(name, lease, ownerId);
        // create-if-absent, else read: a retry after an ambiguous error finds its own key instead of a second one.
        // Both branches also read the oldest key of the lock, as etcd's concurrency.Mutex does: when it is ours,
        // the lock is held after this one round trip
        GetOption oldest = GetOption.builder().isPrefix(true).withKeysOnly(true).withSortField(GetOption.SortTarget.CREATE)
                .withSortOrder(GetOption.SortOrder.ASCEND).withLimit(1).build();
        ByteSequence prefix = keys.prefix(name);
        CompletableFuture<QueueTicket> joined = retried(attempt -> kv.txn()
                .If(new Cmp(key, Cmp.Op.EQUAL, CmpTarget.createRevision(0)))
                .Then(Op.put(key, ownerValue, PutOption.builder().withLeaseId(lease).build()), Op.get(prefix, oldest))
                .Else(Op.get(key, GetOption.DEFAULT), Op.get(prefix, oldest))
                .commit()
                .thenApply(response -> {
                    List<GetResponse> reads = response.getGetResponses();
                    long revision = response.isSucceeded() ? response.getHeader().getRevision()
                            : reads.get(0).getKvs().get(0).getCreateRevision(); // our own earlier try
                    List<KeyValue> first = reads.get(reads.size() - 1).getKvs();
                    boolean holds = !first.isEmpty() && first.get(0).getCreateRevision() == revision;
                    QueueEntry entry = new QueueEntry(key, revision, lease);
                    entries.put(ownerId, entry);
                    return new QueueKey(this, name, ownerId, entry, holds);
                }));
        joined.whenComplete((ticket, failure) -> {
            if (failure != null && !EtcdSession.leaseNotFound(failure)) {
                // an error answer does not prove the put was not applied (a connection that broke after it):
                // delete now and once more later, when a request still in the server's pipeline has landed
                deleteInBackground(key, 0, lease);
                try {
                    scheduler.schedule(() -> deleteInBackground(key, 0, lease), Math.max(2_000, timeout.toMillis()), TimeUnit.MILLISECONDS);
                } catch (RuntimeException shutDown) {
                    // closing: the session lease is revoked, and the key with it
                }
            }
        });
        return joined;
    }

    @Override
    public CompletableFuture<OwnerCheck> renew(String name, String ownerId, Duration leaseTime) {
        QueueEntry entry = entries.get(ownerId);
        if (entry == null) {
            return CompletableFuture.completedFuture(OwnerCheck.MISSING);
        }
        return bounded("renewal", name, () -> retried(attempt -> {
            CompletableFuture<Boolean> alive = session.keepAlive(entry.lease());
            CompletableFuture<GetResponse> read = kv.get(entry.key(), GetOption.builder().withKeysOnly(true).build());
            return alive.thenCombine(read, (sessionAlive, response) -> sessionAlive && response.getKvs().stream()
                    .anyMatch(kv -> kv.getCreateRevision() == entry.revision()) ? OwnerCheck.OWNER : OwnerCheck.MISSING);
        })).thenApply(check -> {
            if (check == OwnerCheck.MISSING) {
                // the key (or its session) is gone for good, and the engine releases nothing for a lease lost this way:
                // forget the entry, or every lost lease stays in this map
                entries.remove(ownerId, entry);
            }
            return check;
        });
    }

    @Override
    public CompletableFuture<OwnerCheck> release(String name, String ownerId) {
        QueueEntry entry = entries.remove(ownerId);
        if (entry == null) {
            return CompletableFuture.completedFuture(OwnerCheck.MISSING);
        }
        // a retry after an ambiguous error that finds the key gone: our first delete went through (OwnerCheck allows it)
        CompletableFuture<OwnerCheck> released = bounded("release", name, () -> retried(attempt -> deleteIfRevision(entry.key(), entry.revision())
                .thenApply(deleted -> deleted || attempt > 0 ? OwnerCheck.OWNER : OwnerCheck.MISSING)));
        released.whenComplete((check, failure) -> {
            if (failure != null) {
                // unanswered (no leader, unreachable): the key must not outlive the release, the session goes on
                deleteInBackground(entry.key(), entry.revision(), entry.lease());
            }
        });
        return released;
    }

    @Override
    public CompletableFuture<Boolean> forceRelease(String name) {
        return bounded("forceUnlock", name, () -> retried(attempt -> kv.get(keys.prefix(name), GetOption.builder().isPrefix(true).withKeysOnly(true)
                        .withSortField(GetOption.SortTarget.CREATE).withSortOrder(GetOption.SortOrder.ASCEND).withLimit(1).build())
                .thenCompose(response -> {
                    if (response.getKvs().isEmpty()) {
                        return CompletableFuture.completedFuture(false);
                    }
                    KeyValue holder = response.getKvs().get(0);
                    return deleteIfRevision(holder.getKey(), holder.getCreateRevision());
                })));
    }

    @Override
    public CompletableFuture<Boolean> isLocked(String name) {
        return bounded("isLocked", name, () -> retried(attempt -> kv.get(keys.prefix(name), GetOption.builder().isPrefix(true)
                .withCountOnly(true).build()).thenApply(response -> response.getCount() > 0)));
    }

    @Override
    public void addSessionListener(SessionListener listener) {
        session.listener(listener);
    }

    /** Deletes {@code key} if its create revision is {@code revision} (any, if 0); true if it deleted it. */
    CompletableFuture<Boolean> deleteIfRevision(ByteSequence key, long revision) {
        if (revision == 0) {
            return kv.delete(key, DeleteOption.DEFAULT).thenApply(response -> response.getDeleted() > 0);
        }
        return kv.txn().If(new Cmp(key, Cmp.Op.EQUAL, CmpTarget.createRevision(revision)))
                .Then(Op.delete(key, DeleteOption.DEFAULT))
                .commit()
                .thenApply(response -> response.isSucceeded());
    }

    /**
     * Deletes a queue key of ours in the background, retried (every half second, then every second) until
     * etcd answers, or the session lease the key is on is no longer this client's (lost or revoked: the
     * key goes with it on the server), or the client closes (which revokes the lease).
     */
    CompletableFuture<Void> deleteInBackground(ByteSequence key, long revision, long lease) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        deleteAttempt(key, revision, lease, 0, done);
        return done;
    }

    private void deleteAttempt(ByteSequence key, long revision, long lease, int attempt, CompletableFuture<Void> done) {
        CompletableFuture<Boolean> deleting;
        try {
            deleting = deleteIfRevision(key, revision).orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (RuntimeException closed) {
            done.complete(null);
            return;
        }
        deleting.whenComplete((deleted, failure) -> {
            if (failure == null || scheduler.isShutdown() || session.currentLease() != lease) {
                done.complete(null);
                return;
            }
            if (attempt == 0) {
                log.warn("distlock-etcd: deleting queue key {} failed ({}); retrying in the background while the session lasts",
                        key.toString(StandardCharsets.UTF_8), failure.toString());
            }
            try {
                scheduler.schedule(() -> deleteAttempt(key, revision, lease, attempt + 1, done), attempt < 4 ? 500 : 1000, TimeUnit.MILLISECONDS);
            } catch (RuntimeException shutDown) {
                done.complete(null);
            }
        });
    }

    /**
     * Runs {@code attempt} (given its number, from 0) and again while it fails with a transient error
     * (UNAVAILABLE: no leader, leader changed, connection lost) and the operation timeout has not passed;
     * every caller's request is safe to repeat. jetcd itself does not retry transactions.
     */
    <T> CompletableFuture<T> retried(IntFunction<CompletableFuture<T>> attempt) {
        CompletableFuture<T> result = new CompletableFuture<>();
        retry(attempt, 0, System.nanoTime() + timeout.toNanos(), result);
        return result;
    }

    private <T> void retry(IntFunction<CompletableFuture<T>> attempt, int number, long deadline, CompletableFuture<T> result) {
        CompletableFuture<T> running;
        try {
            running = attempt.apply(number);
        } catch (RuntimeException e) {
            result.completeExceptionally(e);
            return;
        }
        running.whenComplete((value, failure) -> {
            if (failure == null) {
                result.complete(value);
                return;
            }
            long delayMillis = Math.min(500, 50L << Math.min(number, 4));
            if (!transientFailure(failure) || result.isDone() || System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(delayMillis) - deadline > 0) {
                result.completeExceptionally(failure);
                return;
            }
            try {
                scheduler.schedule(() -> retry(attempt, number + 1, deadline, result), delayMillis, TimeUnit.MILLISECONDS);
            } catch (RuntimeException shutDown) {
                result.completeExceptionally(failure);
            }
        });
    }

    static boolean transientFailure(Throwable failure) {
        Throwable cause = failure;
        while (cause instanceof java.util.concurrent.CompletionException && cause.getCause() != null) {
            cause = cause.getCause();
        }
        if (cause instanceof io.etcd.jetcd.common.exception.EtcdException etcd) {
            return etcd.getErrorCode() == io.etcd.jetcd.common.exception.ErrorCode.UNAVAILABLE;
        }
        return cause instanceof io.grpc.StatusRuntimeException status && status.getStatus().getCode() == io.grpc.Status.Code.UNAVAILABLE;
    }

    /** Forgets that {@code ownerId} holds {@code entry} (its ticket left the queue). */
    void forget(String ownerId, QueueEntry entry) {
        entries.remove(ownerId, entry);
    }

    Client client() {
        return client;
    }

    KV kv() {
        return kv;
    }

    LockKeys keys() {
        return keys;
    }

    EtcdSession session() {
        return session;
    }

    /**
     * Runs an etcd call, bounded by the operation timeout, its failures translated. The call's own future
     * is left alone when the time runs out (orTimeout would fail it too, and with it the cleanup that
     * waits for its real outcome).
     */
    <T> CompletableFuture<T> bounded(String operation, String name, Supplier<CompletableFuture<T>> call) {
        CompletableFuture<T> result = new CompletableFuture<>();
        CompletableFuture<T> running;
        try {
            running = call.get();
        } catch (RuntimeException e) {
            result.completeExceptionally(errors.translate(e, operation, name));
            return result;
        }
        ScheduledFuture<?> timer;
        try {
            timer = scheduler.schedule(() -> result.completeExceptionally(errors.translate(new TimeoutException(), operation, name)),
                    timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (RuntimeException closed) {
            result.completeExceptionally(new LockException(operation + " of lock '" + name + "': the client is closed", closed));
            return result;
        }
        running.whenComplete((value, failure) -> {
            timer.cancel(false);
            if (failure != null) {
                result.completeExceptionally(errors.translate(failure, operation, name));
            } else {
                result.complete(value);
            }
        });
        return result;
    }

    LockException vanished(String name) {
        return new LockException("the queue key of lock '" + name + "' on etcd at " + endpoints
                + " vanished (its session lease expired, or the key was deleted)");
    }

    @Override
    public void close() {
        session.close(timeout);
        scheduler.shutdownNow();
        if (ownsClient) {
            client.close();
        }
    }

    /** A key of ours in some lock's queue. */
    record QueueEntry(ByteSequence key, long revision, long lease) {}

    @Override
    public Map<String, Integer> stateCounts() {
        return Map.of("queue entries", entries.size());
    }
}
