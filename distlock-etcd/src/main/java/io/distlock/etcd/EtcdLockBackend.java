package io.distlock.etcd;

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
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The storage operations on etcd. Each waiter is a key {@code <namespace>/<name>/<lease>-<client>-<number>} on
 * the client's session lease, created only if absent; the key with the lowest create revision holds the
 * lock; each waiter watches only the key created just before its own, for its deletion. The fencing token
 * is the holder key's create revision: revisions only grow, across restarts and leader elections.
 */
final class EtcdLockBackend implements LockBackend, QueueingAcquire, BatchRenewal, SessionEvents, LockKinds, StateCounts {
    /*
     * etcd's own concurrency.Mutex, on KV, Txn and Watch; not the server's Lock RPC, which blocks on the
     * server and cannot be cancelled cleanly.
     *
     * Every request is bounded by the operation timeout here (jetcd has no per-call deadline), so that no
     * cleanup chain waits forever. A key whose create may or may not have happened (the request failed or
     * timed out) is deleted in the background; so is the key of a waiter that gave up and of a release
     * that was not answered, retried until the delete is answered or the session lease it belongs to is
     * gone: a left-over key on a live session would block the queue for as long as the client runs.
     *
     * Key names are reused (KeySlots), so no delete of a queue key goes by its name alone: it compares the create
     * revision, or, where that is unknown (a join that failed, or earlier tries of a join that succeeded on a retry),
     * the value the join put, which names the owner id and the join's own number (see valueOf). A delete request that
     * is still on its way when the client has given up on it (a timeout, then a retry) may land after a later key of
     * the same name was made, and must not remove it: seen in a checker run
     * (seed 5008, a leader kill) when those deletes went by name. A number is given again only once every delete of its
     * last key has ended, and a join that finds its key made by another owner does not take it (StaleKey).
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
    /** This kind's policy (which keys hold), and a semaphore's number of permits (0 for the other kinds). */
    private final QueueRule rule;
    private final int permits;
    /** What a queue key of this kind holds: who made it, and a semaphore's number of permits. */
    private final ByteSequence value;
    /** The queue key of every owner id of this client, in every kind (owner ids are unique per acquisition). */
    private final ConcurrentHashMap<String, QueueEntry> entries;
    /** The numbers in this client's queue keys, in every kind: reused once a key is gone (see {@link KeySlots}). */
    private final KeySlots slots;
    /** Counts this client's joins, in every kind: a join puts its number in its key's value (see {@link #valueOf}). */
    private final AtomicLong joins;

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
        this.rule = QueueRule.EXCLUSIVE;
        this.permits = 0;
        this.value = ownerValue;
        this.entries = new ConcurrentHashMap<>();
        this.slots = new KeySlots();
        this.joins = new AtomicLong();
    }

    /** Another kind's storage on {@code base}'s connection and session, with its keys under {@code keys}; closing it is the base's. */
    private EtcdLockBackend(EtcdLockBackend base, LockKeys keys, QueueRule rule, int permits) {
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
        this.rule = rule;
        this.permits = permits;
        this.value = rule == QueueRule.PERMIT
                ? LockKeys.bytes(base.ownerValue.toString(StandardCharsets.UTF_8) + " " + PERMITS + permits) : base.ownerValue;
        this.entries = base.entries;
        this.slots = base.slots;
        this.joins = base.joins;
    }

    /**
     * Fair locks: the plain lock's recipe (the oldest key holds; each waiter watches the key just before its own), which
     * is first come, first served already, under keys of their own ({@code <namespace>/~fair/<name>/...}: '~' never
     * starts an encoded name, so no plain lock's prefix covers them).
     */
    @Override
    public LockBackend fairLocks() {
        return new EtcdLockBackend(this, keys.kind("~fair"), QueueRule.EXCLUSIVE, 0);
    }

    /**
     * Read-write locks: readers' ({@code r-}), writers' ({@code w-}) and downgraded readers' ({@code d<writer>-}) keys in
     * one queue per name under {@code <namespace>/~rw/}; see {@link QueueRule} and {@link EtcdReadWrite}.
     */
    @Override
    public ReadWriteStorage readWriteLocks() {
        LockKeys readWrite = keys.kind("~rw");
        return new EtcdReadWrite(new EtcdLockBackend(this, readWrite, QueueRule.READ, 0), new EtcdLockBackend(this, readWrite, QueueRule.WRITE, 0));
    }

    /**
     * Semaphores: the {@code permits} oldest keys of a name under {@code <namespace>/~sem/} hold. Each key carries its
     * number of permits in its value; a join that finds the oldest key with another number is refused.
     */
    @Override
    public SemaphoreStorage semaphores() {
        EtcdLockBackend base = this;
        return new SemaphoreStorage() {
            @Override
            public LockBackend withPermits(int count) {
                return new EtcdLockBackend(base, base.keys.kind("~sem"), QueueRule.PERMIT, count);
            }

            @Override
            public CompletableFuture<Integer> availablePermits(String name, int count) {
                EtcdLockBackend view = (EtcdLockBackend) withPermits(count);
                return view.bounded("availablePermits", name, () -> view.retried(attempt -> view.queue(name, false))
                        .thenApply(queue -> Math.max(0, (queue.isEmpty() ? count : storedPermits(queue.get(0), count)) - queue.size())));
            }
        };
    }

    QueueRule rule() {
        return rule;
    }

    int permits() {
        return permits;
    }

    ByteSequence value() {
        return value;
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

    /** How many keys left over in the slot a join took it tries past before it fails (each try takes another slot). */
    private static final int STALE_KEYS_PASSED = 3;

    private CompletableFuture<QueueTicket> join(String name, String ownerId, long lease) {
        return join(name, ownerId, lease, 0);
    }

    /**
     * Puts this waiter's key, {@code <lease>-<client>-<number>} with a number of {@link KeySlots} (not in use by any
     * key of this client that may still exist), unless it exists.
     */
    private CompletableFuture<QueueTicket> join(String name, String ownerId, long lease, int stalePassed) {
        String prefix = keys.prefixText(name); // URL-encoded once per try: the slot's space, the key and the read below
        KeySlots.Slot slot = slots.take(prefix + rule.role);
        ByteSequence key = LockKeys.bytes(prefix + rule.role + Long.toHexString(lease) + "-" + keyId(ownerId, slot));
        // create-if-absent, else read: a retry after an ambiguous error finds its own key instead of a second one.
        // Both branches also read what tells whether the new key holds at once, as etcd's concurrency.Mutex reads the
        // oldest key: when it does, the lock is held after this one round trip
        Op look = lookAtJoin(prefix);
        ByteSequence madeBy = valueOf(ownerId, joins.incrementAndGet());
        CompletableFuture<QueueTicket> joined = retried(attempt -> kv.txn()
                .If(new Cmp(key, Cmp.Op.EQUAL, CmpTarget.createRevision(0)))
                .Then(Op.put(key, madeBy, PutOption.builder().withLeaseId(lease).build()), look)
                .Else(Op.get(key, GetOption.DEFAULT), look)
                .commit()
                .thenApply(response -> {
                    List<GetResponse> reads = response.getGetResponses();
                    boolean created = response.isSucceeded();
                    if (!created && (attempt == 0 || !reads.get(0).getKvs().get(0).getValue().equals(madeBy))) {
                        // the key was there before this join sent anything, or another join made it: not ours to take
                        // (its create revision is an older token, perhaps a lost holder's). Only a retry may find the key
                        // an earlier try of this join made, and that key holds this join's value
                        throw new StaleKey(key, reads.get(0).getKvs().get(0).getCreateRevision(), attempt);
                    }
                    long revision = created ? response.getHeader().getRevision()
                            : reads.get(0).getKvs().get(0).getCreateRevision(); // our own earlier try
                    List<KeyValue> seen = reads.get(reads.size() - 1).getKvs();
                    if (rule == QueueRule.PERMIT) {
                        checkPermits(name, seen, key, revision, lease);
                    }
                    // made on a retry: an earlier try may still be in the network, and land once this key is gone
                    QueueEntry entry = new QueueEntry(key, revision, lease, slot, attempt > 0 ? madeBy : null);
                    remember(ownerId, entry);
                    return new QueueKey(this, name, ownerId, entry, holdsAtJoin(seen, created, revision));
                }));
        // one callback, so that the order is this code's, not the order in which a future runs its callbacks: the next try
        // takes its number while this try's is still in use (it must not take the number of the key it passes), and only
        // then is this try cleaned up and its number given back
        return joined.handle((ticket, failure) -> {
            if (failure == null) {
                return CompletableFuture.completedFuture(ticket);
            }
            if (EtcdSession.leaseNotFound(failure)) {
                slots.giveBack(slot); // no key of that lease can exist, nor be made
                return CompletableFuture.<QueueTicket>failedFuture(failure);
            }
            StaleKey stale = unwrap(failure) instanceof StaleKey found ? found : null;
            CompletableFuture<QueueTicket> next;
            try {
                next = stale != null && stalePassed < STALE_KEYS_PASSED ? join(name, ownerId, lease, stalePassed + 1)
                        : CompletableFuture.failedFuture(failure);
            } finally {
                cleanUpFailedJoin(key, madeBy, lease, slot, stale); // whatever the next try did, this one is cleaned up
            }
            return next;
        }).thenCompose(Function.identity());
    }

    /**
     * Cleans up after a join that failed, other than for its session lease being unknown; gives its number back once
     * every delete has ended. Two kinds of key may be under its name:
     * <ul>
     *   <li>a key left over that a try found there ({@code stale}: made by another owner, a create that landed after its
     *       deletes): deleted by its create revision, unless a waiter of this client holds that key (not expected: that
     *       waiter's number was given back while it lived; this join's number comes back all the same);</li>
     *   <li>the key a try of this join put, or will put: an error answer does not prove the put was not applied (a
     *       connection that broke after it), and a try the client gave up on may still be in the network and land
     *       after any delete sent now. Deleted now and once more later, when a request still in the server's pipeline
     *       has landed. The create revision is unknown, so each delete compares the value this join put (it names the
     *       owner id and this join's number): a delete that lands late cannot remove a later key of this name. Skipped
     *       only when the first try itself found the left-over key: that try was answered, and no other was sent.</li>
     * </ul>
     * A key of this join that lands after the later delete stays until the session ends, the client's next join under
     * this number finds it, or an operator force-unlocks it (guarantees.md, liveness).
     */
    private void cleanUpFailedJoin(ByteSequence key, ByteSequence madeBy, long lease, KeySlots.Slot slot, @Nullable StaleKey stale) {
        List<CompletableFuture<Void>> deletes = new ArrayList<>();
        if (stale != null) {
            if (entries.values().stream().noneMatch(entry -> entry.key().equals(key))) {
                deletes.add(deleteInBackground(key, stale.revision, lease));
            } else {
                // not expected: a number is in use until its key is known gone, so this takes a waiter whose number was
                // given back while its entry lived on. Nobody else gives this slot back (the waiter's slot is returned
                // already): it comes back below, as a number in use for ever would keep the name's state for ever
                log.error("distlock-etcd: key {} of a waiter of this client was given to a second waiter; the second takes another",
                        key.toString(StandardCharsets.UTF_8));
            }
        }
        if (stale == null || stale.attempt > 0) {
            deletes.add(deleteNowAndLater(key, madeBy, lease));
        }
        CompletableFuture.allOf(deletes.toArray(CompletableFuture[]::new)).whenComplete((done, error) -> slots.giveBack(slot));
    }

    /**
     * Deletes {@code key} while its value is {@code madeBy}, now and once more max(2 s, operation timeout) later (when a
     * try of its join still in the server's pipeline has landed); completes when both have ended. The value names the
     * join ({@link #valueOf}), so no later key of this name is touched, whichever join of this client makes it.
     */
    CompletableFuture<Void> deleteNowAndLater(ByteSequence key, ByteSequence madeBy, long lease) {
        CompletableFuture<Void> later = new CompletableFuture<>();
        try {
            scheduler.schedule(() -> deleteInBackground(key, madeBy, lease).whenComplete((done, error) -> later.complete(null)),
                    Math.max(2_000, timeout.toMillis()), TimeUnit.MILLISECONDS);
        } catch (RuntimeException shutDown) {
            later.complete(null); // closing: the session lease is revoked, and the key with it
        }
        return CompletableFuture.allOf(deleteInBackground(key, madeBy, lease), later);
    }

    private static final String MADE_BY = "owner=";

    private static final String JOIN = "join=";

    /**
     * What a join puts in its key: who made it ({@link #value}), the owner id the key was made for and the join's
     * number among this client's joins, so that no two joins of the client put the same value (a chain of joins past
     * keys left over shares one owner id). A delete that compares this value removes only that join's key.
     */
    private ByteSequence valueOf(String ownerId, long join) {
        String text = ownerValue.toString(StandardCharsets.UTF_8) + " " + MADE_BY + ownerId + " " + JOIN + join;
        return LockKeys.bytes(rule == QueueRule.PERMIT ? text + " " + PERMITS + permits : text);
    }

    /** Returns a value for a key made outside {@link #join} (a downgrade's reader), one no other join of this client puts. */
    ByteSequence joinValue(String ownerId) {
        return valueOf(ownerId, joins.incrementAndGet());
    }

    /** The owner part of a queue key: the client's part of the owner id and the key's number. */
    private static String keyId(String ownerId, KeySlots.Slot slot) {
        int dash = ownerId.lastIndexOf('-');
        return (dash > 0 ? ownerId.substring(0, dash) : ownerId) + "-" + Integer.toString(slot.number(), 36);
    }

    private static Throwable unwrap(Throwable failure) {
        Throwable cause = failure;
        while (cause instanceof java.util.concurrent.CompletionException && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }

    /** A try of a join found its key there, made by another owner (see {@link #join}). */
    static final class StaleKey extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final transient ByteSequence key;
        final long revision;
        /** Which try of the join found it: 0, the first (no try of this join was sent before it). */
        final int attempt;

        StaleKey(ByteSequence key, long revision, int attempt) {
            super("queue key " + key.toString(StandardCharsets.UTF_8) + " exists already (create revision " + revision + ")", null, false, false);
            this.key = key;
            this.revision = revision;
            this.attempt = attempt;
        }
    }

    /** What the join reads beside its own key: enough to tell whether the new key holds at once (see {@link #holdsAtJoin}). */
    /** The read of {@link #lookAtJoin} for exclusive and write keys: the name's oldest key. */
    private static final GetOption OLDEST_KEY = GetOption.builder().isPrefix(true).withKeysOnly(true)
            .withSortField(GetOption.SortTarget.CREATE).withSortOrder(GetOption.SortOrder.ASCEND).withLimit(1).build();

    /** The read of {@link #lookAtJoin} for read keys: any writer's key. */
    private static final GetOption ANY_KEY = GetOption.builder().isPrefix(true).withKeysOnly(true).withLimit(1).build();

    /** The read that tells whether a new key holds, of the queue whose keys start with {@code prefix} ({@link LockKeys#prefixText}). */
    private Op lookAtJoin(String prefix) {
        return switch (rule) {
            case EXCLUSIVE, WRITE -> Op.get(LockKeys.bytes(prefix), OLDEST_KEY);
            case READ -> Op.get(LockKeys.bytes(prefix + QueueRule.WRITE.role), ANY_KEY);
            case PERMIT -> Op.get(LockKeys.bytes(prefix), GetOption.builder().isPrefix(true).withSortField(GetOption.SortTarget.CREATE)
                    .withSortOrder(GetOption.SortOrder.ASCEND).withLimit(permits + 1L).build());
        };
    }

    /**
     * Whether the key at {@code revision} holds, from {@link #lookAtJoin}'s read. A reader or writer key that was not
     * created by this very transaction (a retry found it) is judged by the turn check instead: younger keys may exist
     * by now (a downgraded reader that keeps writers out), which a fresh key cannot have.
     */
    private boolean holdsAtJoin(List<KeyValue> seen, boolean created, long revision) {
        return switch (rule) {
            case EXCLUSIVE -> !seen.isEmpty() && seen.get(0).getCreateRevision() == revision;
            case WRITE -> created && !seen.isEmpty() && seen.get(0).getCreateRevision() == revision;
            case READ -> created && seen.isEmpty();
            case PERMIT -> seen.stream().limit(permits).anyMatch(key -> key.getCreateRevision() == revision);
        };
    }

    /**
     * Refuses a permit key of a semaphore in use with another number of permits: the oldest key's number is the
     * semaphore's (every key was admitted with the number of the oldest key at its join, and keys leave oldest first or
     * with their sessions, so the keys that may hold all carry one number). The refused key is deleted again; while it
     * exists it only counts as one more key ahead of later waiters, which holds up nobody's safety.
     */
    private void checkPermits(String name, List<KeyValue> oldestFirst, ByteSequence key, long revision, long lease) {
        if (oldestFirst.isEmpty() || oldestFirst.get(0).getCreateRevision() == revision) {
            return;
        }
        int stored = storedPermits(oldestFirst.get(0), permits);
        if (stored != permits) {
            deleteInBackground(key, revision, lease);
            throw RefusedUse.permits("acquire", name, describe(), Integer.toString(stored), permits);
        }
    }

    private static final String PERMITS = "permits=";

    /** Returns the number of permits a semaphore key carries in its value, or {@code otherwise} if it carries none. */
    static int storedPermits(KeyValue key, int otherwise) {
        String text = key.getValue().toString(StandardCharsets.UTF_8);
        int at = text.lastIndexOf(PERMITS);
        try {
            return at < 0 ? otherwise : Integer.parseInt(text.substring(at + PERMITS.length()).trim());
        } catch (NumberFormatException notOurs) {
            return otherwise;
        }
    }

    /** Reads every key of {@code name}'s queue in this kind, oldest first ({@code keysOnly}: without their values). */
    CompletableFuture<List<KeyValue>> queue(String name, boolean keysOnly) {
        return kv.get(keys.prefix(name), GetOption.builder().isPrefix(true).withKeysOnly(keysOnly)
                .withSortField(GetOption.SortTarget.CREATE).withSortOrder(GetOption.SortOrder.ASCEND).build())
                .thenApply(GetResponse::getKvs);
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
            if (check == OwnerCheck.MISSING && entries.remove(ownerId, entry)) {
                // the key (or its session) is gone for good, and the engine releases nothing for a lease lost this way:
                // forget the entry, or every lost lease stays in this map
                keyGone(entry);
            }
            return check;
        });
    }

    /**
     * The most keys one read of a batch renewal asks for: etcd refuses a transaction of more operations than its
     * {@code --max-txn-ops} (128 unless set lower); a server that refuses it lowers this for the client's lifetime.
     */
    static final int KEYS_PER_READ = 128;
    /** How many reads of {@link #KEYS_PER_READ} keys one {@link #renewAll} call sends at once. */
    private static final int READS_PER_BATCH = 8;
    private volatile int keysPerRead = KEYS_PER_READ;

    @Override
    public int maxBatchSize() {
        return KEYS_PER_READ * READS_PER_BATCH;
    }

    /**
     * Renews many leases with one keep-alive per session lease among them and one read transaction per
     * {@link #KEYS_PER_READ} keys (each key, keys only), all sent at once: as for {@link #renew}, a request is
     * {@link OwnerCheck#OWNER} only if a keep-alive sent after the watchdog's send time found its session lease alive
     * and a read after that time found its key with the create revision it was granted with. A key or session that is
     * gone is {@link OwnerCheck#MISSING} (forgotten, as in renew); a request whose keep-alive or read failed is
     * unanswered (null) and the watchdog tries it again. The results are per request: one failed read or lost session
     * does not decide the others. 100,000 held locks cost about 800 reads per renewal interval instead of 200,000
     * calls (a read and a keep-alive stream each).
     */
    @Override
    public CompletableFuture<List<@Nullable OwnerCheck>> renewAll(List<RenewalRequest> requests) {
        if (requests.isEmpty()) {
            return CompletableFuture.completedFuture(List.of());
        }
        int count = requests.size();
        String name = requests.get(0).name(); // errors say "batched renewal (n locks) of lock '<the first>'"
        String operation = BatchRenewal.operation(requests);
        QueueEntry[] asked = new QueueEntry[count];
        Map<Long, CompletableFuture<Boolean>> sessions = new HashMap<>();
        List<Integer> reading = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            QueueEntry entry = entries.get(requests.get(i).ownerId());
            asked[i] = entry;
            if (entry != null) {
                reading.add(i);
                sessions.computeIfAbsent(entry.lease(), lease -> bounded(operation, name, () -> retried(attempt -> session.keepAlive(lease))));
            }
        }
        // for each request: whether its key was found with its revision (null: not read)
        Boolean[] found = new Boolean[count];
        List<CompletableFuture<?>> reads = new ArrayList<>();
        int perRead = keysPerRead;
        for (int from = 0; from < reading.size(); from += perRead) {
            List<Integer> chunk = reading.subList(from, Math.min(reading.size(), from + perRead));
            reads.add(readKeys(operation, name, chunk, asked, found, requests));
        }
        List<CompletableFuture<?>> all = new ArrayList<>(reads);
        all.addAll(sessions.values());
        return CompletableFuture.allOf(all.toArray(CompletableFuture<?>[]::new)).handle((done, failure) -> {
            List<@Nullable OwnerCheck> results = new ArrayList<>(count);
            Throwable firstFailure = null;
            for (int i = 0; i < count; i++) {
                QueueEntry entry = asked[i];
                if (entry == null) {
                    results.add(OwnerCheck.MISSING);
                    continue;
                }
                CompletableFuture<Boolean> alive = java.util.Objects.requireNonNull(sessions.get(entry.lease()));
                if (alive.isCompletedExceptionally() || found[i] == null) {
                    results.add(null);
                    if (firstFailure == null && alive.isCompletedExceptionally()) {
                        firstFailure = alive.handle((value, error) -> error).join();
                    }
                    continue;
                }
                boolean owner = alive.join() && found[i];
                if (!owner && entries.remove(requests.get(i).ownerId(), entry)) {
                    // gone for good, and the engine releases nothing for a lease lost this way (as in renew)
                    keyGone(entry);
                }
                results.add(owner ? OwnerCheck.OWNER : OwnerCheck.MISSING);
            }
            if (failure != null && results.stream().allMatch(java.util.Objects::isNull)) {
                // nothing answered: the watchdog tells the holders why
                throw failure instanceof java.util.concurrent.CompletionException completion ? completion
                        : new java.util.concurrent.CompletionException(firstFailure != null ? firstFailure : failure);
            }
            return results;
        });
    }

    /**
     * Reads the keys of the requests at {@code indexes} in one read-only transaction and records in {@code found}
     * whether each is there with its revision. A server with a lower {@code --max-txn-ops} refuses it: then these are
     * renewed one by one, and later batches read fewer keys at a time.
     */
    private CompletableFuture<Void> readKeys(String operation, String name, List<Integer> indexes, QueueEntry[] asked, Boolean[] found, List<RenewalRequest> requests) {
        GetOption keysOnly = GetOption.builder().withKeysOnly(true).build();
        CompletableFuture<Void> read = bounded(operation, name, () -> retried(attempt -> {
            io.etcd.jetcd.Txn txn = kv.txn();
            Op[] gets = new Op[indexes.size()];
            for (int k = 0; k < gets.length; k++) {
                gets[k] = Op.get(asked[indexes.get(k)].key(), keysOnly);
            }
            return txn.Then(gets).commit();
        })).thenAccept(response -> {
            List<GetResponse> responses = response.getGetResponses();
            for (int k = 0; k < indexes.size(); k++) {
                QueueEntry entry = asked[indexes.get(k)];
                found[indexes.get(k)] = responses.get(k).getKvs().stream().anyMatch(kv -> kv.getCreateRevision() == entry.revision());
            }
        });
        return read.exceptionallyCompose(failure -> {
            if (!tooManyOperations(failure) || indexes.size() <= 1) {
                return CompletableFuture.failedFuture(failure);
            }
            int smaller = Math.max(1, indexes.size() / 2);
            if (smaller < keysPerRead) {
                keysPerRead = smaller;
                log.warn("distlock-etcd: the server at {} refuses a transaction of {} reads (its --max-txn-ops or --max-request-bytes "
                        + "is lower); renewals now read {} keys at a time", endpoints, indexes.size(), smaller);
            }
            List<CompletableFuture<?>> singles = new ArrayList<>(indexes.size());
            for (int index : indexes) {
                RenewalRequest request = requests.get(index);
                singles.add(renew(request.name(), request.ownerId(), request.leaseTime())
                        .thenAccept(check -> found[index] = check == OwnerCheck.OWNER));
            }
            return CompletableFuture.allOf(singles.toArray(CompletableFuture<?>[]::new));
        });
    }

    /**
     * Returns whether {@code failure} is etcd refusing a transaction of more operations than its {@code --max-txn-ops}, or
     * a message larger than it takes ({@code --max-request-bytes} + 512 KiB for a read; 128 of the longest names,
     * URL-encoded, are about 1.2 MB of keys).
     */
    static boolean tooManyOperations(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            String message = cause.getMessage();
            if (message != null && (message.contains("too many operations in txn request") || message.contains("larger than max")
                    || message.contains("request is too large"))) {
                return true;
            }
            if (cause.getCause() == cause) {
                break;
            }
        }
        return false;
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
        // the caller hears the answer only after keyGone has given the number back: callbacks on one future run
        // last-registered first, so a caller's own callback on `released` ran before a keyGone registered there, and an
        // acquire started the moment close() returned found the number still in use and made a second key (CI of stop
        // 52). A fresh future carries the outcome as it was, not wrapped in a CompletionException
        CompletableFuture<OwnerCheck> answer = new CompletableFuture<>();
        released.whenComplete((check, failure) -> {
            if (failure != null) {
                // unanswered (no leader, unreachable): the key must not outlive the release, the session goes on; its
                // number stays in use until that delete has ended
                deleteInBackground(entry.key(), entry.revision(), entry.lease()).whenComplete((done, error) -> keyGone(entry));
                answer.completeExceptionally(failure);
            } else {
                keyGone(entry); // deleted, or found gone
                answer.complete(check);
            }
        });
        return answer;
    }

    @Override
    public CompletableFuture<Boolean> forceRelease(String name) {
        return endHolders(name, queue -> rule.holders(queue, permits)).thenApply(ended -> ended > 0);
    }

    /**
     * Deletes the keys {@code pick} chooses from one read of {@code name}'s queue, in one transaction that compares
     * their create revisions: if any of them left meanwhile (someone may have been granted since the read), nothing is
     * deleted and the queue is read again. A transaction whose answer was lost (UNAVAILABLE after the server applied it)
     * is not sent blind again: if every key it would delete is gone when the queue is read again, it ran (or they left
     * on their own), and nobody granted after it is ended. Returns how many keys it deleted.
     */
    CompletableFuture<Integer> endHolders(String name, java.util.function.Function<List<KeyValue>, List<KeyValue>> pick) {
        CompletableFuture<Integer> result = new CompletableFuture<>();
        endHoldersAttempt(name, pick, List.of(), 0, System.nanoTime() + timeout.toNanos(), result);
        return bounded("forceUnlock", name, () -> result);
    }

    private void endHoldersAttempt(String name, java.util.function.Function<List<KeyValue>, List<KeyValue>> pick, List<KeyValue> unanswered,
            int number, long deadline, CompletableFuture<Integer> result) {
        if (result.isDone()) {
            return; // timed out: the caller has its answer
        }
        List<KeyValue> sent = new java.util.ArrayList<>();
        CompletableFuture<List<KeyValue>> read;
        try {
            read = queue(name, true);
        } catch (RuntimeException closed) {
            result.completeExceptionally(closed);
            return;
        }
        CompletableFuture<Integer> attempt = read.thenCompose(queue -> {
            if (!unanswered.isEmpty() && unanswered.stream().noneMatch(gone -> queue.stream()
                    .anyMatch(key -> key.getCreateRevision() == gone.getCreateRevision()))) {
                return CompletableFuture.completedFuture(unanswered.size()); // the unanswered transaction ran
            }
            List<KeyValue> holders = pick.apply(queue);
            if (holders.isEmpty()) {
                return CompletableFuture.completedFuture(0);
            }
            sent.addAll(holders);
            var txn = kv.txn().If(holders.stream().map(key -> new Cmp(key.getKey(), Cmp.Op.EQUAL, CmpTarget.createRevision(key.getCreateRevision())))
                    .toArray(Cmp[]::new));
            return txn.Then(holders.stream().map(key -> Op.delete(key.getKey(), DeleteOption.DEFAULT)).toArray(Op[]::new)).commit()
                    .thenApply(response -> response.isSucceeded() ? holders.size() : -1);
        });
        attempt.whenComplete((ended, failure) -> {
            boolean changed = failure == null && ended < 0;
            if (failure == null && !changed) {
                result.complete(ended);
                return;
            }
            if ((failure != null && !transientFailure(failure)) || System.nanoTime() - deadline > 0) {
                result.completeExceptionally(failure != null ? failure : new LockException("force-unlock of lock '" + name + "' on "
                        + describe() + ": its holders changed under every try for " + timeout));
                return;
            }
            // changed: read again, with nothing unanswered; failed in transit: read again, and judge what was sent by it
            List<KeyValue> judge = failure != null && !sent.isEmpty() ? List.copyOf(sent) : changed ? List.of() : unanswered;
            try {
                scheduler.schedule(() -> endHoldersAttempt(name, pick, judge, number + 1, deadline, result),
                        changed ? 0 : Math.min(500, 50L << Math.min(number, 4)), TimeUnit.MILLISECONDS);
            } catch (RuntimeException shutDown) {
                result.completeExceptionally(failure != null ? failure : new LockException("the client is closed"));
            }
        });
    }

    @Override
    public CompletableFuture<Boolean> isLocked(String name) {
        if (rule == QueueRule.EXCLUSIVE || rule == QueueRule.PERMIT) { // some key holds whenever there is one
            return bounded("isLocked", name, () -> retried(attempt -> kv.get(keys.prefix(name), GetOption.builder().isPrefix(true)
                    .withCountOnly(true).build()).thenApply(response -> response.getCount() > 0)));
        }
        return bounded("isLocked", name, () -> retried(attempt -> queue(name, true)).thenApply(queue -> !rule.holders(queue, permits).isEmpty()));
    }

    @Override
    public void addSessionListener(SessionListener listener) {
        session.listener(listener);
    }

    /**
     * Deletes {@code key} if its create revision is {@code revision}; true if it deleted it. Revision 0 deletes it by
     * name, which only a key whose name is never reused may be (a downgraded reader's, named by its owner id).
     */
    CompletableFuture<Boolean> deleteIfRevision(ByteSequence key, long revision) {
        if (revision == 0) {
            return kv.delete(key, DeleteOption.DEFAULT).thenApply(response -> response.getDeleted() > 0);
        }
        return deleteIf(key, CmpTarget.createRevision(revision));
    }

    /**
     * Deletes {@code key} if its {@code target} (create revision, value) equals the one given (a missing key fails any
     * such compare); true if it deleted it.
     */
    private CompletableFuture<Boolean> deleteIf(ByteSequence key, CmpTarget<?> target) {
        return kv.txn().If(new Cmp(key, Cmp.Op.EQUAL, target)).Then(Op.delete(key, DeleteOption.DEFAULT)).commit().thenApply(response -> response.isSucceeded());
    }

    /**
     * Deletes a queue key of ours in the background, retried (every half second, then every second) until
     * etcd answers, or the session lease the key is on is no longer this client's (lost or revoked: the
     * key goes with it on the server), or the client closes (which revokes the lease).
     */
    CompletableFuture<Void> deleteInBackground(ByteSequence key, long revision, long lease) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        deleteAttempt(key, () -> deleteIfRevision(key, revision), lease, 0, done);
        return done;
    }

    /** As {@link #deleteInBackground(ByteSequence, long, long)}, for a key whose create revision is unknown: deletes it only while its value is {@code value}. */
    private CompletableFuture<Void> deleteInBackground(ByteSequence key, ByteSequence value, long lease) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        deleteAttempt(key, () -> deleteIf(key, CmpTarget.value(value)), lease, 0, done);
        return done;
    }

    private void deleteAttempt(ByteSequence key, Supplier<CompletableFuture<Boolean>> delete, long lease, int attempt, CompletableFuture<Void> done) {
        CompletableFuture<Boolean> deleting;
        try {
            deleting = delete.get().orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS);
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
                scheduler.schedule(() -> deleteAttempt(key, delete, lease, attempt + 1, done), attempt < 4 ? 500 : 1000, TimeUnit.MILLISECONDS);
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
        Throwable cause = unwrap(failure);
        if (cause instanceof io.etcd.jetcd.common.exception.EtcdException etcd) {
            return etcd.getErrorCode() == io.etcd.jetcd.common.exception.ErrorCode.UNAVAILABLE;
        }
        return cause instanceof io.grpc.StatusRuntimeException status && status.getStatus().getCode() == io.grpc.Status.Code.UNAVAILABLE;
    }

    /** Forgets that {@code ownerId} holds {@code entry} (its ticket left the queue). */
    void forget(String ownerId, QueueEntry entry) {
        entries.remove(ownerId, entry);
    }

    /** Forgets the key of {@code ownerId}, whichever it is. */
    void forget(String ownerId) {
        entries.remove(ownerId);
    }

    /**
     * Records that {@code ownerId} holds {@code entry} (made by a join, or by a downgrade outside enqueue). The engine
     * takes a new owner id for every acquisition (QueueGranter, DowngradeGranter), so no entry is expected to be
     * replaced. Should one be, its key may still exist on the session: it is deleted by its create revision (a later
     * key of its name is not touched), and its number comes back after that, not before.
     */
    void remember(String ownerId, QueueEntry entry) {
        QueueEntry replaced = entries.put(ownerId, entry);
        if (replaced == null || replaced == entry || (replaced.key().equals(entry.key()) && replaced.revision() == entry.revision())) {
            return;
        }
        log.warn("distlock-etcd: owner id {} joined again while its key {} was recorded; deleting that key", ownerId,
                replaced.key().toString(StandardCharsets.UTF_8));
        deleteInBackground(replaced.key(), replaced.revision(), replaced.lease()).whenComplete((done, error) -> keyGone(replaced));
    }

    /**
     * Gives the number of {@code entry}'s key back, its key known gone. A key its join made on a retry may come back: an
     * earlier try of that join may still be in the network and, landing now, create it again (a key no waiter owns, the
     * oldest of its name until the session ends). Such a key is deleted by its join's value now and later, in the
     * background; the number does not wait for that. Its next join puts another value, and wherever the late try lands
     * it cannot pass for that join's key: before the next join's create, the create finds a key and the join passes it
     * as left over (deleted by its create revision, another number taken; {@link #join}); while the next key exists, the
     * late try finds it and makes nothing; after it, the sweep deletes it by a value no later join puts, if it has
     * landed by the later delete (max(2 s, operation timeout) after the release; one landing later stays, guarantees.md).
     * Holding the number for the sweep made an acquire right after such a release take a second number and key name.
     */
    void keyGone(QueueEntry entry) {
        slots.giveBack(entry.slot());
        ByteSequence earlierTries = entry.earlierTries();
        if (earlierTries != null) {
            deleteNowAndLater(entry.key(), earlierTries, entry.lease());
        }
    }

    /** Returns the key of {@code ownerId}, if it has one in any kind of this client. */
    @org.jspecify.annotations.Nullable QueueEntry entry(String ownerId) {
        return entries.get(ownerId);
    }

    ScheduledExecutorService scheduler() {
        return scheduler;
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

    /**
     * A queue key of this client: its create revision, its session lease, its number (null: a key without one) and,
     * for a key its join made on a retry, the value an earlier try of that join would put (null: made by the first try,
     * the only one sent; see {@link #keyGone}).
     */
    record QueueEntry(ByteSequence key, long revision, long lease, KeySlots.@Nullable Slot slot, @Nullable ByteSequence earlierTries) {
        QueueEntry(ByteSequence key, long revision, long lease) {
            this(key, revision, lease, null, null);
        }
    }

    @Override
    public Map<String, Integer> stateCounts() {
        return Map.of("queue entries", entries.size(), "names with numbered keys", slots.spaces());
    }
}
