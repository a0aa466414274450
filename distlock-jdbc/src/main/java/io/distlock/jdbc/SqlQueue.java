package io.distlock.jdbc;

import io.distlock.spi.AcquireResult;
import io.distlock.spi.LockBackend;
import io.distlock.spi.OwnerCheck;
import io.distlock.spi.QueuePolicy;
import io.distlock.spi.QueueingAcquire;
import io.distlock.spi.RefusedUse;
import io.distlock.spi.ReleaseSubscription;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * One kind of queued lock on SQL (fair locks, one side of read-write locks, semaphores of one number of permits): rows
 * of the queue table in ticket order per name, judged by a {@link Rule}.
 */
final class SqlQueue implements LockBackend, QueueingAcquire {
    /*
     * Join: one transaction takes the next ticket from the name's counter row (ticket 0; inserted on first use),
     * which locks it until the commit; deletes the name's dead rows; inserts the waiter's row with a heartbeat of one
     * lease; and when the rule makes the new row a holder already, takes the next number as its token at once. So an
     * uncontended acquire is one transaction.
     *
     * Turn check: refresh the row's heartbeat and read the name's live rows (autocommit statements, no lock). If the
     * rule makes the row a holder, one transaction locks the counter, reads the rows again and, if it still holds,
     * takes the next number as the token and turns the heartbeat into the lease. The decision is taken under the
     * counter's lock, which joins, grants, downgrades and force unlocks of the name all take: a downgraded reader
     * committing at the same moment cannot be missed by a writer's grant. Rows ahead only ever die (nobody extends a
     * dead row), so a row that holds by the rule keeps holding until it leaves.
     *
     * Tokens: every join and grant takes one number from the counter, so tokens follow the grants and never repeat.
     *
     * A waiter whose row died (paused past its heartbeat, or deleted) joins again at the tail, like a waiter whose
     * session ended on ZooKeeper or etcd. A dead waiter holds up nobody longer than its heartbeat (one lease): its row
     * stops being live. A waiter re-checks at least every third of its lease (the heartbeat), when a row ahead of it
     * runs out, on PostgreSQL when a notification of the name arrives, elsewhere after a backoff from 5 ms up to the
     * release poll.
     */
    private static final long DEAD_ROW_GRACE_MILLIS = 600_000; // a force-unlocked row is kept this long for its holder to learn it

    private final SqlConnections connections;
    private final SqlDialect dialect;
    private final @Nullable ReleaseWatch notifications;
    private final Duration releasePoll;
    private final String describe;
    private final Duration timeout;
    private final String kindKey;
    private final Rule rule;
    private final int permits;
    private final String q;

    SqlQueue(SqlConnections connections, SqlDialect dialect, @Nullable ReleaseWatch notifications, Duration releasePoll, String describe,
            Duration timeout, String kindKey, Rule rule, int permits) {
        this.connections = connections;
        this.dialect = dialect;
        this.notifications = notifications;
        this.releasePoll = releasePoll;
        this.describe = describe;
        this.timeout = timeout;
        this.kindKey = kindKey;
        this.rule = rule;
        this.permits = permits;
        this.q = dialect.queueTable();
    }

    /** What decides which live rows of a name hold, over the rows in ticket order. */
    enum Rule {
        /** Fair locks: the first row holds. */
        EXCLUSIVE('X'),
        /** Readers: hold while no writer is ahead; downgraded readers always. */
        READ('R'),
        /** Writers: hold when first and no reader downgraded by another writer is live. */
        WRITE('W'),
        /** Permits: the first {@code permits} rows hold. */
        PERMIT('P');

        /** The role of a reader made by a downgrade (its writer's ticket in the writer column). */
        static final char DOWNGRADED = 'D';

        /** How a row reads to the rule shared by every queueing backend. */
        private static final QueuePolicy.Roles<Row> ROLES = new QueuePolicy.Roles<>() {
            @Override
            public boolean isWriter(Row row) {
                return row.role() == WRITE.role;
            }

            @Override
            public boolean isDowngradedReader(Row row) {
                return row.role() == DOWNGRADED;
            }

            @Override
            public boolean downgradedBy(Row reader, Row writer) {
                return reader.writer() == writer.ticket();
            }
        };

        final char role;
        private final QueuePolicy policy;

        Rule(char role) {
            this.role = role;
            this.policy = QueuePolicy.valueOf(name());
        }

        /** Returns the rows of {@code live} (one name's, in ticket order) that hold now. */
        List<Row> holders(List<Row> live, int permits) {
            return policy.holders(live, permits, ROLES);
        }

        /** Returns every row of a read-write lock's {@code live} rows that holds now: the writer, then the readers. */
        static List<Row> readWriteHolders(List<Row> live) {
            return QueuePolicy.readWriteHolders(live, ROLES);
        }
    }

    /**
     * A live row of a queue.
     *
     * @param millisLeft until its heartbeat or lease runs out on the database clock
     */
    record Row(long ticket, char role, String owner, long writer, int permits, long fence, long millisLeft) {}

    /** Returns the key of {@code name}'s rows in this kind: the SHA-256 of the kind and the name. */
    byte[] key(String name) {
        return LockTable.key(kindKey + ":" + name);
    }

    /** Returns what notifications of {@code name}'s queue carry: never a lock name (those have no control characters). */
    String watchKey(String name) {
        return "\u0001" + kindKey + ":" + name;
    }

    Rule rule() {
        return rule;
    }

    int permits() {
        return permits;
    }

    SqlConnections connections() {
        return connections;
    }

    SqlDialect dialect() {
        return dialect;
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
    public CompletableFuture<QueueTicket> enqueue(String name, String ownerId, Duration leaseTime) {
        if (ownerId.isEmpty() || ownerId.length() > SqlDialect.MAX_OWNER_LENGTH) {
            return CompletableFuture.failedFuture(new IllegalArgumentException("owner id must have 1 to " + SqlDialect.MAX_OWNER_LENGTH
                    + " characters (the owner column's width), had " + ownerId.length()));
        }
        SqlTicket ticket = new SqlTicket(this, name, ownerId, leaseTime.toMillis());
        // listen first, join second: a release between the join and the first check is heard. The join waits for the
        // listening connection at most half an operation timeout (one that cannot reconnect must not stop the kinds;
        // the heartbeat checks every third of a lease all the same)
        CompletableFuture<Void> listening = CompletableFuture.completedFuture(null);
        if (notifications != null) {
            CompletableFuture<ReleaseSubscription> watching = notifications.watch(watchKey(name), ticket::maybeTurn);
            watching.thenAccept(ticket::listening);
            listening = watching.<Void>thenApply(running -> null).completeOnTimeout(null, timeout.toMillis() / 2, TimeUnit.MILLISECONDS);
        }
        return listening.thenCompose(ready -> connections.submit("acquire", name, connection -> {
            ticket.joined(join(connection, name, ownerId, 0, leaseTime.toMillis(), rule.role));
            return (QueueTicket) ticket;
        }, (connection, late) -> deleteOwner(connection, name, ownerId))).whenComplete((joined, failure) -> {
            if (failure != null) {
                ticket.stopListening();
            }
        });
    }

    /**
     * Joins {@code name}'s queue with a row of {@code role} (one transaction, see the class comment).
     *
     * @return the row's ticket, and its token if it holds at once (else 0)
     */
    Joined join(Connection connection, String name, String ownerId, long writer, long leaseMillis, char role) throws SQLException {
        return inTransaction(connection, () -> joinInTransaction(connection, name, ownerId, writer, leaseMillis, role));
    }

    /** {@link #join}, in the caller's transaction. */
    Joined joinInTransaction(Connection connection, String name, String ownerId, long writer, long leaseMillis, char role) throws SQLException {
        {
            byte[] key = key(name);
            long ticket = nextNumber(connection, key, name);
            deleteDead(connection, key);
            // a row of this owner id already here is from this very join, run again after its answer was lost: owner ids
            // are unique per acquisition, and a row nobody refreshes would stand ahead of ours for a whole heartbeat
            try (PreparedStatement orphan = connection.prepareStatement("DELETE FROM " + q + " WHERE lock_key = ? AND owner = ? AND ticket > 0")) {
                orphan.setBytes(1, key);
                orphan.setString(2, ownerId);
                orphan.executeUpdate();
            }
            List<Row> live = live(connection, key);
            if (rule == Rule.PERMIT && !live.isEmpty() && live.get(0).permits() != permits) {
                throw RefusedUse.permits("acquire", name, describe, Integer.toString(live.get(0).permits()), permits);
            }
            try (PreparedStatement insert = connection.prepareStatement("INSERT INTO " + q + " (lock_key, ticket, lock_name, lock_role, owner, "
                    + "writer, permits, fence, lease_ms, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?, " + dialect.nowPlusMillis() + ")")) {
                insert.setBytes(1, key);
                insert.setLong(2, ticket);
                insert.setString(3, name);
                insert.setString(4, String.valueOf(role));
                insert.setString(5, ownerId);
                insert.setLong(6, writer);
                insert.setInt(7, permits);
                insert.setLong(8, leaseMillis);
                insert.setLong(9, leaseMillis);
                insert.executeUpdate();
            }
            List<Row> withMine = new ArrayList<>(live);
            Row mine = new Row(ticket, role, ownerId, writer, permits, 0, leaseMillis);
            withMine.add(mine);
            boolean holds = role == Rule.DOWNGRADED || rule.holders(withMine, permits).stream().anyMatch(row -> row.ticket() == ticket);
            long token = holds ? grant(connection, key, name, ticket, ownerId, leaseMillis) : 0;
            return new Joined(ticket, token);
        }
    }

    /** A row that joined: its ticket, and its token if it held at once (else 0). */
    record Joined(long ticket, long token) {}

    /**
     * What a turn check found.
     *
     * @param token the token if granted; 0 if the row waits; -1 if the row is no longer live (it must join again)
     * @param millisAhead while it waits: until the first row ahead of it runs out (0 if none)
     */
    record Turn(long token, long millisAhead) {}

    /** Checks the turn of {@code ticket}: refreshes its heartbeat, and grants it if the rule makes it a holder. */
    Turn checkTurn(Connection connection, String name, long ticket, String ownerId, long leaseMillis) throws SQLException {
        byte[] key = key(name);
        try (PreparedStatement refresh = connection.prepareStatement("UPDATE " + q + " SET expires_at = " + dialect.nowPlusMillis()
                + " WHERE lock_key = ? AND ticket = ? AND owner = ? AND fence >= 0 AND expires_at > " + dialect.now())) {
            refresh.setLong(1, leaseMillis);
            refresh.setBytes(2, key);
            refresh.setLong(3, ticket);
            refresh.setString(4, ownerId);
            if (refresh.executeUpdate() == 0) {
                return new Turn(-1, 0);
            }
        }
        List<Row> live = live(connection, key);
        if (!holds(live, ticket)) {
            long ahead = live.stream().filter(row -> row.ticket() < ticket).mapToLong(Row::millisLeft).filter(left -> left > 0).min().orElse(0);
            return new Turn(0, ahead);
        }
        long token = inTransaction(connection, () -> {
            nextNumber(connection, key, name); // the counter's lock: decide under it (its number is spent, harmlessly)
            return holds(live(connection, key), ticket) ? grant(connection, key, name, ticket, ownerId, leaseMillis) : 0L;
        });
        return new Turn(token, 0);
    }

    private boolean holds(List<Row> live, long ticket) {
        return rule.holders(live, permits).stream().anyMatch(row -> row.ticket() == ticket);
    }

    /** Takes the next number as {@code ticket}'s token and turns its heartbeat into the lease; in the caller's transaction. */
    private long grant(Connection connection, byte[] key, String name, long ticket, String ownerId, long leaseMillis) throws SQLException {
        long token = nextNumber(connection, key, name);
        try (PreparedStatement update = connection.prepareStatement("UPDATE " + q + " SET fence = ?, expires_at = " + dialect.nowPlusMillis()
                + " WHERE lock_key = ? AND ticket = ? AND owner = ?")) {
            update.setLong(1, token);
            update.setLong(2, leaseMillis);
            update.setBytes(3, key);
            update.setLong(4, ticket);
            update.setString(5, ownerId);
            if (update.executeUpdate() != 1) {
                throw new SQLException("the queue row " + ticket + " of '" + name + "' vanished inside its own transaction");
            }
        }
        return token;
    }

    /** Takes the next number of {@code name}'s counter row (inserted on first use), holding its row lock until the commit. */
    long nextNumber(Connection connection, byte[] key, String name) throws SQLException {
        for (int attempt = 0; attempt < 3; attempt++) {
            try (PreparedStatement bump = connection.prepareStatement("UPDATE " + q + " SET fence = fence + 1 WHERE lock_key = ? AND ticket = 0")) {
                bump.setBytes(1, key);
                if (bump.executeUpdate() == 1) {
                    try (PreparedStatement read = connection.prepareStatement("SELECT fence FROM " + q + " WHERE lock_key = ? AND ticket = 0")) {
                        read.setBytes(1, key);
                        try (ResultSet row = read.executeQuery()) {
                            row.next();
                            return row.getLong(1);
                        }
                    }
                }
            }
            try (PreparedStatement insert = connection.prepareStatement("INSERT INTO " + q + " (lock_key, ticket, lock_name, lock_role, owner, "
                    + "writer, permits, fence, lease_ms, expires_at) VALUES (?, 0, ?, 'C', NULL, 0, 0, 1, 0, " + dialect.now() + ")")) {
                insert.setBytes(1, key);
                insert.setString(2, name);
                insert.executeUpdate();
                return 1;
            } catch (SQLException e) {
                if (!dialect.isDuplicateKey(e)) {
                    throw e;
                }
                // another join inserted it first: take a number from it; PostgreSQL aborts the transaction on the error
                if (dialect instanceof PostgresDialect) {
                    throw new RetryTransaction(e);
                }
            }
        }
        throw new SQLException("the counter row of '" + name + "' in " + q + " could not be read or made");
    }

    /** Deletes the dead rows of a name: expired waiters and holders; force-unlocked rows only after their grace. */
    private void deleteDead(Connection connection, byte[] key) throws SQLException {
        try (PreparedStatement delete = connection.prepareStatement("DELETE FROM " + q + " WHERE lock_key = ? AND ticket > 0 AND expires_at <= "
                + dialect.now() + " AND (fence >= 0 OR expires_at <= " + dialect.nowPlusMillis() + ")")) {
            delete.setBytes(1, key);
            delete.setLong(2, -DEAD_ROW_GRACE_MILLIS);
            delete.executeUpdate();
        }
    }

    /** Reads the live rows of a name, in ticket order. */
    List<Row> live(Connection connection, byte[] key) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement("SELECT ticket, lock_role, owner, writer, permits, fence, "
                + dialect.millisUntilExpiry() + " FROM " + q + " WHERE lock_key = ? AND ticket > 0 AND expires_at > " + dialect.now()
                + " ORDER BY ticket")) {
            select.setBytes(1, key);
            List<Row> rows = new ArrayList<>();
            try (ResultSet row = select.executeQuery()) {
                while (row.next()) {
                    rows.add(new Row(row.getLong(1), row.getString(2).charAt(0), row.getString(3), row.getLong(4), row.getInt(5), row.getLong(6),
                            row.getLong(7)));
                }
            }
            return rows;
        }
    }

    /** Deletes every row of {@code ownerId} in {@code name}'s queue (a waiter that leaves); returns how many. */
    int deleteOwner(Connection connection, String name, String ownerId) throws SQLException {
        int deleted;
        try (PreparedStatement delete = connection.prepareStatement("DELETE FROM " + q + " WHERE lock_key = ? AND owner = ? AND ticket > 0")) {
            delete.setBytes(1, key(name));
            delete.setString(2, ownerId);
            deleted = delete.executeUpdate();
        }
        if (deleted > 0) {
            dialect.notifyQueue(connection, watchKey(name));
        }
        return deleted;
    }

    /** A lease ends on the server when the time it was last renewed for runs out. */
    @Override
    public boolean leasesEndOnTheServer() {
        return true;
    }

    @Override
    public CompletableFuture<OwnerCheck> renew(String name, String ownerId, Duration leaseTime) {
        return connections.submit("renewal", name, connection -> {
            try (PreparedStatement renew = connection.prepareStatement("UPDATE " + q + " SET expires_at = " + dialect.nowPlusMillis()
                    + " WHERE lock_key = ? AND owner = ? AND fence > 0 AND expires_at > " + dialect.now())) {
                renew.setLong(1, leaseTime.toMillis());
                renew.setBytes(2, key(name));
                renew.setString(3, ownerId);
                if (renew.executeUpdate() > 0) {
                    return OwnerCheck.OWNER;
                }
            }
            return forceUnlocked(connection, name, ownerId) ? OwnerCheck.FORCE_UNLOCKED : OwnerCheck.MISSING;
        });
    }

    @Override
    public CompletableFuture<OwnerCheck> release(String name, String ownerId) {
        AtomicBoolean sent = new AtomicBoolean();
        return connections.submit("release", name, connection -> {
            boolean again = sent.getAndSet(true); // run twice: the first try's answer was lost with its connection
            try (PreparedStatement delete = connection.prepareStatement("DELETE FROM " + q + " WHERE lock_key = ? AND owner = ? AND fence > 0 AND "
                    + "expires_at > " + dialect.now())) {
                delete.setBytes(1, key(name));
                delete.setString(2, ownerId);
                if (delete.executeUpdate() > 0) {
                    dialect.notifyQueue(connection, watchKey(name));
                    return OwnerCheck.OWNER;
                }
            }
            boolean forced = forceUnlocked(connection, name, ownerId);
            deleteOwner(connection, name, ownerId); // expired, or force-unlocked: nothing of it is left
            return forced ? OwnerCheck.FORCE_UNLOCKED : again ? OwnerCheck.OWNER : OwnerCheck.MISSING;
        });
    }

    /** Returns whether a row of {@code ownerId} was ended by a force unlock (its fence set to -1). */
    private boolean forceUnlocked(Connection connection, String name, String ownerId) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement("SELECT 1 FROM " + q + " WHERE lock_key = ? AND owner = ? AND fence = -1")) {
            select.setBytes(1, key(name));
            select.setString(2, ownerId);
            try (ResultSet row = select.executeQuery()) {
                return row.next();
            }
        }
    }

    @Override
    public CompletableFuture<Boolean> forceRelease(String name) {
        return endHolders(name, live -> rule.holders(live, permits)).thenApply(ended -> ended > 0);
    }

    /**
     * Ends the holders {@code pick} chooses from the live rows, in one transaction under the counter's lock (so no
     * grant of the name runs meanwhile: never a moment with one holder ended and another left beside a new one). The
     * rows are kept dead (fence -1) for a while, so that their holders learn they were force-unlocked. The counter
     * row records the request: a transaction run again because its first answer was lost ends nobody granted since.
     */
    CompletableFuture<Integer> endHolders(String name, Function<List<Row>, List<Row>> pick) {
        String request = "force-unlock " + UUID.randomUUID();
        return connections.submit("forceUnlock", name, connection -> {
            int ended = inTransaction(connection, () -> {
                byte[] key = key(name);
                nextNumber(connection, key, name);
                String before = counterOwner(connection, key);
                if (before != null && before.startsWith(request + " ")) {
                    return Integer.parseInt(before.substring(request.length() + 1)); // ran before
                }
                List<Row> holders = pick.apply(live(connection, key));
                for (Row holder : holders) {
                    try (PreparedStatement end = connection.prepareStatement("UPDATE " + q + " SET fence = -1, expires_at = " + dialect.now()
                            + " WHERE lock_key = ? AND ticket = ?")) {
                        end.setBytes(1, key);
                        end.setLong(2, holder.ticket());
                        end.executeUpdate();
                    }
                }
                try (PreparedStatement mark = connection.prepareStatement("UPDATE " + q + " SET owner = ? WHERE lock_key = ? AND ticket = 0")) {
                    mark.setString(1, request + " " + holders.size());
                    mark.setBytes(2, key);
                    mark.executeUpdate();
                }
                if (!holders.isEmpty()) {
                    dialect.notifyQueue(connection, watchKey(name));
                }
                return holders.size();
            });
            return ended;
        });
    }

    private @Nullable String counterOwner(Connection connection, byte[] key) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement("SELECT owner FROM " + q + " WHERE lock_key = ? AND ticket = 0")) {
            select.setBytes(1, key);
            try (ResultSet row = select.executeQuery()) {
                return row.next() ? row.getString(1) : null;
            }
        }
    }

    @Override
    public CompletableFuture<Boolean> isLocked(String name) {
        return connections.submit("isLocked", name, connection -> !rule.holders(live(connection, key(name)), permits).isEmpty());
    }

    /** Returns how many of {@code count} permits of {@code name} are free now (the semaphore's own number if in use). */
    CompletableFuture<Integer> availablePermits(String name, int count) {
        return connections.submit("availablePermits", name, connection -> {
            List<Row> live = live(connection, key(name));
            return Math.max(0, (live.isEmpty() ? count : live.get(0).permits()) - live.size());
        });
    }

    /** Returns the longest a non-listening waiter sleeps between checks. */
    Duration releasePoll() {
        return releasePoll;
    }

    boolean listens() {
        return notifications != null;
    }

    @Override
    public void close() {
        // the views share the client's connections; the lock backend closes them
    }

    /** Work in one transaction of its own. */
    @FunctionalInterface
    interface TransactionWork<T> {
        T run() throws SQLException;
    }

    /**
     * Runs {@code work} in a transaction on {@code connection} (which is in autocommit otherwise), committing it, or
     * rolling it back if it throws. A PostgreSQL transaction that hit a duplicate key (it is aborted) is run again, up
     * to {@value #ATTEMPTS} times in all. A transaction the database chose as a deadlock victim (SQLState class 40, as on
     * MySQL/MariaDB when first joins of a new name meet: their empty updates of the missing counter row take gap locks,
     * and their inserts of it wait on each other) is rolled back and its error thrown: SqlConnections runs the whole call
     * again.
     */
    static <T> T inTransaction(Connection connection, TransactionWork<T> work) throws SQLException {
        for (int attempt = 1; ; attempt++) {
            connection.setAutoCommit(false);
            try {
                T result = work.run();
                connection.commit();
                return result;
            } catch (RetryTransaction retry) {
                rollbackQuietly(connection);
                if (attempt >= ATTEMPTS) {
                    throw retry.cause;
                }
            } catch (SQLException | RuntimeException e) {
                rollbackQuietly(connection);
                throw e; // a deadlock victim (class 40) is run again whole by SqlConnections
            } finally {
                try {
                    connection.setAutoCommit(true);
                } catch (SQLException closed) {
                    // the connection is broken: SqlConnections closes it when the error reaches it
                }
            }
        }
    }

    /** How many times {@link #inTransaction} runs a transaction that hit a duplicate key on PostgreSQL, at most. */
    static final int ATTEMPTS = 3;

    private static void rollbackQuietly(Connection connection) {
        try {
            connection.rollback();
        } catch (SQLException ignored) {
            // broken connection: the server rolls back when it goes
        }
    }

    /** Run the transaction again (PostgreSQL aborted it after an expected error). */
    private static final class RetryTransaction extends RuntimeException {
        private final SQLException cause;

        RetryTransaction(SQLException cause) {
            super(cause);
            this.cause = cause;
        }
    }
}
