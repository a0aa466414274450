package io.distlock.jdbc;

import io.distlock.jdbc.SqlDialect.RowState;
import io.distlock.spi.AcquireResult;
import io.distlock.spi.BatchRenewal;
import io.distlock.spi.LockBackend;
import io.distlock.spi.LockKinds;
import io.distlock.spi.ReadWriteStorage;
import io.distlock.spi.SemaphoreStorage;
import io.distlock.spi.OwnerCheck;
import io.distlock.spi.PollingAcquire;
import io.distlock.spi.ReleaseSubscription;
import io.distlock.spi.StateCounts;
import io.distlock.spi.TokenRanges;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import org.jspecify.annotations.Nullable;

/** The storage operations on a SQL table: each one or two autocommit statements on the client's own connections. */
final class JdbcLockBackend implements LockBackend, PollingAcquire, TokenRanges, BatchRenewal, StateCounts, LockKinds {
    /*
     * Round trips: an acquire of a free lock is one UPDATE (a name never seen before: UPDATE, SELECT,
     * INSERT); a busy acquire is the UPDATE plus one SELECT for the holder's remaining lease; a renewal and
     * a release are one UPDATE each (plus one SELECT when they find the lock no longer theirs, to say why).
     * On MySQL, an acquire's fence comes back with the UPDATE's answer (LAST_INSERT_ID), or costs one
     * more SELECT where the driver does not pass it on.
     */
    private static final int ACQUIRE_ATTEMPTS = 3;

    private final SqlConnections connections;
    private final SqlDialect dialect;
    private final ReleaseWatch releases;
    private final ScheduledExecutorService timer;
    private final String describe;
    private final Duration timeout;
    private final Duration releasePoll;
    /** Why the queue table cannot serve fair locks, read-write locks and semaphores; null if it can. */
    private final @Nullable String queueMissing;
    /** Acquires and releases queued at once, run as one statement each where the dialect {@link SqlDialect#combines}; else null. */
    private final SqlConnections.@Nullable Combiner<Take, AcquireResult> takes;
    private final SqlConnections.@Nullable Combiner<Release, OwnerCheck> ends;

    /** An acquire's request: {@code tokens} consecutive tokens for {@code ownerId}. */
    private record Take(byte[] key, String name, String ownerId, long leaseMillis, int tokens) { }

    /** A release's request. */
    private record Release(byte[] key, String name, String ownerId) { }

    JdbcLockBackend(SqlConnections connections, SqlDialect dialect, ReleaseWatch releases, ScheduledExecutorService timer, String describe,
            Duration timeout, Duration releasePoll, @Nullable String queueMissing) {
        this.connections = connections;
        this.dialect = dialect;
        this.releases = releases;
        this.timer = timer;
        this.describe = describe;
        this.timeout = timeout;
        this.releasePoll = releasePoll;
        this.queueMissing = queueMissing;
        if (dialect.combines()) {
            this.takes = connections.combiner("acquire", this::acquireAll,
                    (connection, take) -> acquire(connection, take.key(), take.name(), take.ownerId(), take.leaseMillis(), take.tokens(), false),
                    (connection, take, late) -> releaseLateGrant(connection, take, late));
            this.ends = connections.combiner("release", this::releaseAll,
                    (connection, release) -> release(connection, release.key(), release.name(), release.ownerId()), null);
        } else {
            this.takes = null;
            this.ends = null;
        }
    }

    /** Fair locks: rows of the queue table under the kind "fair" (see {@link SqlQueue}). */
    @Override
    public LockBackend fairLocks() {
        return queue("fair", SqlQueue.Rule.EXCLUSIVE, 0);
    }

    /** Read-write locks: readers', writers' and downgraded readers' rows of one queue per name (see {@link SqlReadWrite}). */
    @Override
    public ReadWriteStorage readWriteLocks() {
        return new SqlReadWrite(queue("rw", SqlQueue.Rule.READ, 0), queue("rw", SqlQueue.Rule.WRITE, 0));
    }

    /** Semaphores: the first N live rows of a name hold; each row carries its number of permits. */
    @Override
    public SemaphoreStorage semaphores() {
        return new SemaphoreStorage() {
            @Override
            public LockBackend withPermits(int permits) {
                return queue("sem", SqlQueue.Rule.PERMIT, permits);
            }

            @Override
            public CompletableFuture<Integer> availablePermits(String name, int permits) {
                return queue("sem", SqlQueue.Rule.PERMIT, permits).availablePermits(name, permits);
            }
        };
    }

    private SqlQueue queue(String kind, SqlQueue.Rule rule, int permits) {
        if (queueMissing != null) {
            throw new io.distlock.LockException(queueMissing);
        }
        ReleaseWatch notifications = releases instanceof PostgresReleaseWatch ? releases : null;
        return new SqlQueue(connections, dialect, notifications, releasePoll, describe, timeout, kind, rule, permits);
    }

    @Override
    public String describe() {
        return describe;
    }

    @Override
    public Duration operationTimeout() {
        return timeout;
    }

    @Override
    public CompletableFuture<AcquireResult> tryAcquire(String name, String ownerId, Duration leaseTime) {
        return tryAcquire(name, ownerId, leaseTime, 1);
    }

    /**
     * Reserves {@code count} consecutive tokens: the row's fence moves by {@code count} and keeps the last of them, so
     * every later grant, from any client, gets a larger one (the row is never deleted, and a database keeps it across
     * restarts). A retried request finds its own hold and answers the same range, none of which was used.
     */
    @Override
    public CompletableFuture<AcquireResult> tryAcquire(String name, String ownerId, Duration leaseTime, int count) {
        CompletableFuture<AcquireResult> refused = TokenRanges.refuseCount(count);
        if (refused != null) {
            return refused;
        }
        if (ownerId.isEmpty() || ownerId.length() > SqlDialect.MAX_OWNER_LENGTH) {
            return CompletableFuture.failedFuture(new IllegalArgumentException("owner id must have 1 to " + SqlDialect.MAX_OWNER_LENGTH
                    + " characters (the owner column's width), had " + ownerId.length()));
        }
        Take take = new Take(LockTable.key(name), name, ownerId, leaseTime.toMillis(), count);
        if (takes != null) {
            return takes.submit(name, take.key(), take);
        }
        return connections.submit("acquire", name, connection -> acquire(connection, take.key(), name, ownerId, take.leaseMillis(), count, false),
                (connection, late) -> releaseLateGrant(connection, take, late));
    }

    /** Releases a grant whose caller gave up before it arrived. */
    private void releaseLateGrant(Connection connection, Take take, AcquireResult late) throws SQLException {
        if (late.granted()) {
            dialect.release(connection, take.key(), take.name(), take.ownerId());
        }
    }

    /** Acquires in one combined take; a request it did not grant goes on as {@link #acquire} after a take that found the row held or missing. */
    private List<AcquireResult> acquireAll(Connection connection, List<Take> requests, Runnable statementDone) throws SQLException {
        List<byte[]> keys = new ArrayList<>(requests.size());
        List<String> owners = new ArrayList<>(requests.size());
        List<Long> leases = new ArrayList<>(requests.size());
        List<Integer> tokens = new ArrayList<>(requests.size());
        for (Take take : requests) {
            keys.add(take.key());
            owners.add(take.ownerId());
            leases.add(take.leaseMillis());
            tokens.add(take.tokens());
        }
        long[] last = dialect.takeAll(connection, keys, owners, leases, tokens);
        statementDone.run(); // the next combined take may run; the requests not granted go on alone, one by one
        List<AcquireResult> results = new ArrayList<>(requests.size());
        for (int i = 0; i < requests.size(); i++) {
            Take take = requests.get(i);
            results.add(last[i] > 0 ? AcquireResult.grantedRange(Math.max(1, last[i] - take.tokens() + 1), last[i])
                    : acquire(connection, take.key(), take.name(), take.ownerId(), take.leaseMillis(), take.tokens(), true));
        }
        return results;
    }

    /** Acquires: takes the row if free (or the caller's), else reads why not. {@code tookAlready}: a take just found the row held or missing. */
    private AcquireResult acquire(Connection connection, byte[] key, String name, String ownerId, long leaseMillis, int tokens,
            boolean tookAlready) throws SQLException {
        for (int attempt = 0; attempt < ACQUIRE_ATTEMPTS; attempt++) {
            long last = attempt == 0 && tookAlready ? 0 : dialect.take(connection, key, ownerId, leaseMillis, tokens);
            if (last > 0) {
                return AcquireResult.grantedRange(Math.max(1, last - tokens + 1), last);
            }
            RowState row = dialect.state(connection, key);
            if (row == null) {
                if (dialect.insertHeld(connection, key, name, ownerId, leaseMillis, tokens)) {
                    return AcquireResult.grantedRange(1, tokens);
                }
            } else if (row.held()) {
                return AcquireResult.busy(Duration.ofMillis(row.millisLeft()));
            }
            // freed or created between our statements: take it now
        }
        return AcquireResult.busy(Duration.ZERO);
    }

    /** A lease ends on the server when the time it was last renewed for runs out. */
    @Override
    public boolean leasesEndOnTheServer() {
        return true;
    }

    @Override
    public CompletableFuture<OwnerCheck> renew(String name, String ownerId, Duration leaseTime) {
        byte[] key = LockTable.key(name);
        return connections.submit("renewal", name, connection -> dialect.renew(connection, key, ownerId, leaseTime.toMillis())
                ? OwnerCheck.OWNER : found(dialect.state(connection, key), ownerId, false));
    }

    /** The most renewals one batch takes (one JDBC batch of as many UPDATEs). */
    static final int RENEWALS_PER_BATCH = 500;
    /** Whether the driver answered a batch without update counts: then every renewal is one statement again. */
    private volatile boolean batchCountsUnknown;

    @Override
    public int maxBatchSize() {
        return batchCountsUnknown ? 1 : RENEWALS_PER_BATCH;
    }

    /**
     * Renews many leases with one JDBC batch of the renewal's UPDATE (compare owner, only while unexpired), on one
     * connection: each statement's update count says whether its lease was renewed, independently of the others; one
     * that changed nothing reads its row to say what it found instead (as {@link #renew} does). A driver that does not
     * report update counts ({@code SUCCESS_NO_INFO}) makes each of those statements run again alone (renewing twice is
     * harmless), and the client renews one lock per statement from then on (logged once). A batch that fails fails all
     * its renewals, and the watchdog tries them again.
     */
    @Override
    public CompletableFuture<List<@Nullable OwnerCheck>> renewAll(List<RenewalRequest> requests) {
        if (requests.isEmpty()) {
            return CompletableFuture.completedFuture(List.of());
        }
        String operation = BatchRenewal.operation(requests);
        return connections.submit(operation, requests.get(0).name(), connection -> {
            List<byte[]> keys = new ArrayList<>(requests.size());
            List<String> owners = new ArrayList<>(requests.size());
            List<Long> leases = new ArrayList<>(requests.size());
            for (RenewalRequest request : requests) {
                keys.add(LockTable.key(request.name()));
                owners.add(request.ownerId());
                leases.add(request.leaseTime().toMillis());
            }
            // one request (chunks of one once batching stopped) is one statement: its count is asked for below
            int[] counts = requests.size() == 1 ? new int[] {java.sql.Statement.SUCCESS_NO_INFO} : dialect.renewAll(connection, keys, owners, leases);
            List<@Nullable OwnerCheck> results = new ArrayList<>(requests.size());
            for (int i = 0; i < requests.size(); i++) {
                byte[] key = keys.get(i);
                String owner = owners.get(i);
                boolean renewed;
                if (counts[i] == 1) {
                    renewed = true;
                } else if (counts[i] == 0) {
                    renewed = false;
                } else {
                    if (requests.size() > 1 && !batchCountsUnknown) {
                        batchCountsUnknown = true;
                        org.slf4j.LoggerFactory.getLogger(JdbcLockBackend.class).warn("distlock-jdbc: the JDBC driver of {} does not report "
                                + "update counts of a batch: every renewal is one statement from now on", connections.describe());
                    }
                    renewed = dialect.renew(connection, key, owner, leases.get(i));
                }
                results.add(renewed ? OwnerCheck.OWNER : found(dialect.state(connection, key), owner, false));
            }
            return results;
        });
    }

    @Override
    public CompletableFuture<OwnerCheck> release(String name, String ownerId) {
        byte[] key = LockTable.key(name);
        if (ends != null) {
            return ends.submit(name, key, new Release(key, name, ownerId));
        }
        return connections.submit("release", name, connection -> release(connection, key, name, ownerId));
    }

    private OwnerCheck release(Connection connection, byte[] key, String name, String ownerId) throws SQLException {
        return dialect.release(connection, key, name, ownerId) ? OwnerCheck.OWNER : refusedRelease(connection, key, ownerId);
    }

    /** Releases in one combined statement; a request it did not release goes on as {@link #release} after a release that changed nothing. */
    private List<OwnerCheck> releaseAll(Connection connection, List<Release> requests, Runnable statementDone) throws SQLException {
        List<byte[]> keys = new ArrayList<>(requests.size());
        List<String> owners = new ArrayList<>(requests.size());
        for (Release release : requests) {
            keys.add(release.key());
            owners.add(release.ownerId());
        }
        boolean[] released = dialect.releaseAll(connection, keys, owners);
        statementDone.run();
        List<OwnerCheck> results = new ArrayList<>(requests.size());
        for (int i = 0; i < requests.size(); i++) {
            results.add(released[i] ? OwnerCheck.OWNER : refusedRelease(connection, keys.get(i), owners.get(i)));
        }
        return results;
    }

    /** Says why a release changed nothing, and frees the caller's own expired hold that nobody took since. */
    private OwnerCheck refusedRelease(Connection connection, byte[] key, String ownerId) throws SQLException {
        RowState row = dialect.state(connection, key);
        if (row != null && ownerId.equals(row.owner())) {
            dialect.clearExpired(connection, key, ownerId); // ours but expired, and nobody took it: free it for waiters now
            return OwnerCheck.MISSING;
        }
        return found(row, ownerId, true);
    }

    /** Says what a renewal or release that changed nothing found instead of the caller's unexpired hold. */
    private static OwnerCheck found(@Nullable RowState row, String ownerId, boolean releasing) {
        if (row == null) {
            return OwnerCheck.MISSING;
        }
        boolean endedOurs = ownerId.equals(row.lastOwner());
        if (endedOurs && "F".equals(row.endReason())) {
            return OwnerCheck.FORCE_UNLOCKED;
        }
        if (releasing && endedOurs && "R".equals(row.endReason())) {
            // released already (owner ids are one per grant, so this hold): a retried release, or one whose combined
            // statement could not say which rows it ended; also when someone took the row since (a take leaves
            // last_owner and end_reason as they were), and that is no loss of ours
            return OwnerCheck.OWNER;
        }
        if (row.held() && !Objects.equals(row.owner(), ownerId)) {
            return OwnerCheck.OTHER_OWNER;
        }
        return OwnerCheck.MISSING;
    }

    /**
     * Reads who holds, then ends that hold only (compared on owner and fence), in two calls. A call is run again on a new
     * connection when its pooled connection turns out dead, and that may be after the server ran it (the answer was
     * lost): one "end whoever holds" statement, run again, would end a holder granted in between. Compared on the hold
     * it read, the second run ends nothing, and answers true if it finds that hold ended by a force unlock.
     */
    @Override
    public CompletableFuture<Boolean> forceRelease(String name) {
        byte[] key = LockTable.key(name);
        return connections.submit("forceUnlock", name, connection -> Optional.ofNullable(dialect.state(connection, key))).thenCompose(read -> {
            RowState held = read.filter(RowState::held).orElse(null);
            if (held == null || held.owner() == null) {
                return CompletableFuture.completedFuture(false);
            }
            String owner = held.owner();
            return connections.submit("forceUnlock", name, connection -> {
                if (dialect.forceRelease(connection, key, name, owner, held.fence())) {
                    return true;
                }
                RowState now = dialect.state(connection, key);
                // ended by a force unlock (the first run, whose answer was lost); an acquisition since leaves these two as they are
                return now != null && owner.equals(now.lastOwner()) && "F".equals(now.endReason());
            });
        });
    }

    @Override
    public CompletableFuture<Boolean> isLocked(String name) {
        byte[] key = LockTable.key(name);
        return connections.submit("isLocked", name, connection -> dialect.isLocked(connection, key));
    }

    @Override
    public CompletableFuture<ReleaseSubscription> watchReleases(String name, Runnable onMaybeFree) {
        return releases.watch(name, onMaybeFree);
    }

    @Override
    public void close() {
        releases.close();
        connections.close();
        timer.shutdownNow();
    }

    @Override
    public Map<String, Integer> stateCounts() {
        return Map.of("watched names", releases.watchedCount());
    }
}
