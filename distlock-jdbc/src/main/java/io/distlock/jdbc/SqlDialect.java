package io.distlock.jdbc;

import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The SQL of one database for the lock table: each operation one autocommit statement, with time read
 * only from the database's clock.
 */
abstract class SqlDialect {
    /*
     * The table has one row per lock name, never deleted (so the fence, a per-row counter, only grows):
     *
     *   lock_key     SHA-256 of lock_name (primary key; see LockTable)
     *   lock_name    the name, for people and for the release notification
     *   owner        the holder's owner id, or NULL when released or force-unlocked
     *   fence        the last fencing token the latest acquisition reserved: +n on an acquisition from free that
     *                reserves n tokens (n - 1 for its holder's local handoffs, LockOptions.localHandoffs; else 1)
     *   expires_at   end of the lease, on the database's clock; a row with owner set and expires_at
     *                in the past is free
     *   acquired_at  when the latest acquisition happened (for operators)
     *   last_owner   whose hold ended last, and end_reason how: 'R' released, 'F' force-unlocked,
     *                'E' cleared after it expired. They let a renewal or release that finds the row
     *                changed say why (FORCE_UNLOCKED rather than MISSING).
     *
     * Acquire is an UPDATE of a free row (or the caller's own, for a retried request, which keeps its
     * fence and so answers the same range: its first answer was lost, so none of it was used) that returns the
     * new fence; a name seen for the first time is INSERTed held. Renew and release are UPDATEs
     * that compare the owner and require an unexpired lease; when they change nothing, one SELECT
     * classifies what the caller's owner id finds instead.
     */
    static final int MAX_OWNER_LENGTH = 200;

    protected final LockTable table;
    protected final String t;
    /** The statements of the hot paths by id, each built once (see {@link #statement}). */
    private final ConcurrentHashMap<String, String> statements = new ConcurrentHashMap<>();

    protected SqlDialect(LockTable table) {
        this.table = table;
        this.t = table.name();
    }

    /** Returns the CREATE TABLE statements (idempotent: IF NOT EXISTS): the lock table, then the queue table. */
    List<String> ddl() {
        return List.of(createTable(keyType(), nameType(), ownerType(), timeType(), tableOptions()), createQueueTable());
    }

    /** Returns the column type of lock_key, with its constraint. */
    protected abstract String keyType();

    /** Returns the column type of lock_key without a constraint (the queue table's key has two columns). */
    protected abstract String keyColumnType();

    /** Returns the queue table's name: the lock table's, with {@code _queue} appended (in the same schema). */
    String queueTable() {
        return t + "_queue";
    }

    /*
     * The queue table holds the waiters and holders of fair locks, read-write locks and semaphores, one row per
     * acquisition, in ticket order per lock_key (the SHA-256 of the kind and the name). Ticket 0 is the name's
     * counter row: every join and every grant takes the next number from it (under its row lock, which also
     * serializes a grant's decision with joins, downgrades and force unlocks of the name). A row is live while
     * expires_at (database clock) is ahead: a waiter's row is its heartbeat, refreshed by each turn check; a holder's
     * is its lease. See SqlQueue.
     */
    private String createQueueTable() {
        return "CREATE TABLE IF NOT EXISTS " + queueTable() + " (\n"
                + column("lock_key", keyColumnType() + " NOT NULL", "SHA-256 of the kind and lock_name")
                + column("ticket", "BIGINT NOT NULL", "place in the queue; 0: the name's counter")
                + column("lock_name", nameType(), null)
                + column("lock_role", "CHAR(1) NOT NULL", "C counter, X fair, R read, W write, D downgraded read, P permit")
                + column("owner", ownerType(), "the acquisition's owner id; on the counter: the last force unlock")
                + column("writer", "BIGINT NOT NULL", "D: the ticket of the writer that downgraded")
                + column("permits", "INT NOT NULL", "P: the semaphore's number of permits")
                + column("fence", "BIGINT NOT NULL", "the token once granted, 0 while waiting, -1 force-unlocked")
                + column("lease_ms", "BIGINT NOT NULL", null)
                + column("expires_at", timeType() + " NOT NULL", "heartbeat of a waiter, lease of a holder")
                + "  PRIMARY KEY (lock_key, ticket)\n"
                + ")" + tableOptions();
    }

    /** Checks that the queue table has every column distlock uses. */
    void checkQueueColumns(Connection connection) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement("SELECT lock_key, ticket, lock_name, lock_role, owner, writer, permits, "
                + "fence, lease_ms, expires_at FROM " + queueTable() + " WHERE 1 = 0"); ResultSet ignored = statement.executeQuery()) {
            // the columns exist
        }
    }

    /** Tells listening waiters that the queue behind {@code watchKey} moved, when the current transaction commits (PostgreSQL). */
    void notifyQueue(Connection connection, String watchKey) throws SQLException {
        // only PostgreSQL has notifications; elsewhere queue waiters poll
    }

    /** Returns the column type of lock_name. */
    protected String nameType() {
        return "VARCHAR(1024) NOT NULL";
    }

    /** Returns the column type of owner and last_owner. */
    protected String ownerType() {
        return "VARCHAR(200)";
    }

    /** Returns the column type of expires_at and acquired_at. */
    protected String timeType() {
        return "TIMESTAMP(6) WITH TIME ZONE";
    }

    /** Returns what follows the column list (a storage engine). */
    protected String tableOptions() {
        return "";
    }

    private String createTable(String key, String name, String owner, String time, String options) {
        return "CREATE TABLE IF NOT EXISTS " + t + " (\n"
                + column("lock_key", key, "SHA-256 of lock_name")
                + column("lock_name", name, null)
                + column("owner", owner, "NULL when free")
                + column("fence", "BIGINT NOT NULL", "the fencing token; +1 per acquisition")
                + column("expires_at", time + " NOT NULL", null)
                + column("acquired_at", time, null)
                + column("last_owner", owner, null)
                + column("end_reason", "CHAR(1)", "R released, F force-unlocked, E expired").replace("CHAR(1),", "CHAR(1) ")
                + ")" + options;
    }

    private static String column(String name, String type, @Nullable String comment) {
        String line = "  " + name + " ".repeat(12 - name.length()) + type + ",";
        return (comment == null ? line : line + " ".repeat(Math.max(1, 45 - line.length())) + "-- " + comment) + "\n";
    }

    /** Returns the expression for the database's current time. */
    protected abstract String now();

    /** Returns the expression for now plus a parameter in milliseconds (one {@code ?}). */
    protected abstract String nowPlusMillis();

    /** Returns the expression for the milliseconds from now until expires_at (negative if passed). */
    protected abstract String millisUntilExpiry();

    /** Returns whether the exception says a row with this key exists already. */
    abstract boolean isDuplicateKey(SQLException e);

    /**
     * Returns statement {@code id}, built by {@code build} at its first use (after the subclass's constructor has run). The
     * drivers' statement caches hash the SQL text per call: one String per statement keeps its hash, where a new one
     * per call was hashed in full each time (8 % of the client's Java samples in a PostgreSQL u16 profile), and
     * MySQL's take was a regular expression replace per call.
     */
    protected final String statement(String id, Supplier<String> build) {
        String sql = statements.get(id);
        return sql != null ? sql : statements.computeIfAbsent(id, unused -> build.get());
    }

    /** Returns {@code ?, ?, ...}: {@code n} parameter marks, for an {@code IN} list. */
    protected static String marks(int n) {
        return String.join(", ", Collections.nCopies(n, "?"));
    }

    /** Returns each key's position in {@code keys}: where a combined statement's answer for that key's row goes. */
    protected static Map<ByteBuffer, Integer> positions(List<byte[]> keys) {
        Map<ByteBuffer, Integer> positions = new HashMap<>();
        for (int i = 0; i < keys.size(); i++) {
            positions.put(ByteBuffer.wrap(keys.get(i)), i);
        }
        return positions;
    }

    /** Returns the position of the request for the row {@code key} a combined statement answered; fails if none named it. */
    protected static int positionOf(Map<ByteBuffer, Integer> positions, byte[] key) throws SQLException {
        Integer position = positions.get(ByteBuffer.wrap(key));
        if (position == null) {
            throw new SQLException("a combined statement answered a row no request named");
        }
        return position;
    }

    /**
     * Returns the statement that takes a free row (or the caller's own); parameters owner, tokens to reserve, owner, lease
     * millis, key, owner.
     */
    protected String takeStatement() {
        return "UPDATE " + t + " SET fence = CASE WHEN owner = ? AND expires_at > " + now() + " THEN fence ELSE fence + ? END, owner = ?, "
                + "expires_at = " + nowPlusMillis() + ", acquired_at = " + now()
                + " WHERE lock_key = ? AND (owner IS NULL OR expires_at <= " + now() + " OR owner = ?)";
    }

    /**
     * Takes the lock's row if it is free, or already the caller's (a retried request keeps its fence), reserving
     * {@code tokens} consecutive fencing tokens.
     *
     * @return the last token of the grant's range (its first is {@code tokens - 1} below), or 0 if the row is held by
     *     another owner or does not exist
     */
    abstract long take(Connection connection, byte[] key, String owner, long leaseMillis, int tokens) throws SQLException;

    /** Binds the parameters of {@link #takeStatement()}, starting at {@code first}. */
    protected static void bindTake(PreparedStatement statement, int first, byte[] key, String owner, long leaseMillis, int tokens)
            throws SQLException {
        statement.setString(first, owner);
        statement.setLong(first + 1, tokens);
        statement.setString(first + 2, owner);
        statement.setLong(first + 3, leaseMillis);
        statement.setBytes(first + 4, key);
        statement.setString(first + 5, owner);
    }

    /**
     * Inserts the row of a name never locked before, held by the caller with the tokens 1 to {@code tokens} (the fence
     * keeps the last).
     *
     * @return true if inserted; false if another client inserted it first
     */
    boolean insertHeld(Connection connection, byte[] key, String name, String owner, long leaseMillis, int tokens) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(statement("insert", () -> "INSERT INTO " + t
                + " (lock_key, lock_name, owner, fence, expires_at, acquired_at) VALUES (?, ?, ?, ?, " + nowPlusMillis() + ", " + now() + ")"))) {
            statement.setBytes(1, key);
            statement.setString(2, name);
            statement.setString(3, owner);
            statement.setLong(4, tokens);
            statement.setLong(5, leaseMillis);
            return statement.executeUpdate() == 1;
        } catch (SQLException e) {
            if (isDuplicateKey(e)) {
                return false;
            }
            throw e;
        }
    }

    /** Returns the row of a lock, or null if the name was never locked. */
    @Nullable RowState state(Connection connection, byte[] key) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(statement("state", () -> "SELECT owner, " + millisUntilExpiry()
                + ", last_owner, end_reason, fence FROM " + t + " WHERE lock_key = ?"))) {
            statement.setBytes(1, key);
            try (ResultSet row = statement.executeQuery()) {
                if (!row.next()) {
                    return null;
                }
                return new RowState(row.getString(1), row.getLong(2), row.getString(3), row.getString(4), row.getLong(5));
            }
        }
    }

    /** The renewal: parameters lease millis, key, owner; it extends only the owner's unexpired lease. */
    private String renewStatement() {
        return statement("renew", () -> "UPDATE " + t + " SET expires_at = " + nowPlusMillis() + " WHERE lock_key = ? AND owner = ? AND expires_at > "
                + now());
    }

    /** Extends the caller's unexpired lease; returns whether it did. */
    boolean renew(Connection connection, byte[] key, String owner, long leaseMillis) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(renewStatement())) {
            statement.setLong(1, leaseMillis);
            statement.setBytes(2, key);
            statement.setString(3, owner);
            return statement.executeUpdate() == 1;
        }
    }

    /**
     * Extends each caller's unexpired lease with the statement of {@link #renew}, all in one JDBC batch (one round trip on
     * PostgreSQL's and MariaDB's drivers, which pipeline it); returns each statement's update count: 1 renewed, 0 not,
     * {@link java.sql.Statement#SUCCESS_NO_INFO} where the driver does not tell.
     */
    int[] renewAll(Connection connection, List<byte[]> keys, List<String> owners, List<Long> leaseMillis) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(renewStatement())) {
            for (int i = 0; i < keys.size(); i++) {
                statement.setLong(1, leaseMillis.get(i));
                statement.setBytes(2, keys.get(i));
                statement.setString(3, owners.get(i));
                statement.addBatch();
            }
            return statement.executeBatch();
        }
    }

    /**
     * Returns whether {@link #takeAll} and {@link #releaseAll} run many requests in one statement here; if not, a request
     * is one statement as always.
     */
    boolean combines() {
        return false;
    }

    /**
     * Runs {@link #take} for many rows in one statement: the last token taken per request, 0 where the row is held by
     * another owner or does not exist. The keys are distinct.
     */
    long[] takeAll(Connection connection, List<byte[]> keys, List<String> owners, List<Long> leaseMillis, List<Integer> tokens) throws SQLException {
        throw new UnsupportedOperationException("no combined take on " + getClass().getSimpleName());
    }

    /**
     * Runs {@link #release} for many rows in one statement: true where a request released; false where it did not, or where
     * the database cannot say which of them did (the caller then reads each such row, as after a single release that
     * changed nothing). The keys are distinct.
     */
    boolean[] releaseAll(Connection connection, List<byte[]> keys, List<String> owners) throws SQLException {
        throw new UnsupportedOperationException("no combined release on " + getClass().getSimpleName());
    }

    /** Returns the statement that ends a hold; parameters key, owner; the condition on expires_at is the caller's. */
    protected String endStatement(char reason, String condition) {
        return endStatementWhere(reason, "lock_key = ? AND " + condition);
    }

    /** Returns the statement that ends the holds of the rows {@code where} selects. */
    protected String endStatementWhere(char reason, String where) {
        // last_owner before owner: MySQL assigns left to right, each assignment seeing the ones before
        return "UPDATE " + t + " SET last_owner = owner, owner = NULL, end_reason = '" + reason + "', expires_at = " + now() + " WHERE " + where;
    }

    /** Releases the caller's unexpired lease and wakes waiters; returns whether it did. */
    boolean release(Connection connection, byte[] key, String name, String owner) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(statement("release", () -> endStatement('R', "owner = ? AND expires_at > "
                + now())))) {
            statement.setBytes(1, key);
            statement.setString(2, owner);
            return statement.executeUpdate() == 1;
        }
    }

    /** Clears the caller's expired hold (nobody took the lock since), so the row reads free at once. */
    void clearExpired(Connection connection, byte[] key, String owner) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(endStatement('E', "owner = ?"))) {
            statement.setBytes(1, key);
            statement.setString(2, owner);
            statement.executeUpdate();
        }
    }

    /** Ends the unexpired hold of {@code owner} with fencing token {@code fence} and wakes waiters; returns whether it did. */
    boolean forceRelease(Connection connection, byte[] key, String name, String owner, long fence) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(endStatement('F', FORCE_RELEASE_CONDITION + now()))) {
            statement.setBytes(1, key);
            statement.setString(2, owner);
            statement.setLong(3, fence);
            return statement.executeUpdate() == 1;
        }
    }

    /** The condition of a force release, followed by the database's now: parameters owner and fence, after the key. */
    protected static final String FORCE_RELEASE_CONDITION = "owner = ? AND fence = ? AND expires_at > ";

    /** Returns whether anyone holds an unexpired lease on the lock. */
    boolean isLocked(Connection connection, byte[] key) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement("SELECT 1 FROM " + t + " WHERE lock_key = ? AND owner IS NOT NULL AND expires_at > "
                + now())) {
            statement.setBytes(1, key);
            try (ResultSet row = statement.executeQuery()) {
                return row.next();
            }
        }
    }

    /** Returns which of these locks (up to 100 keys) are free now: released, force-unlocked or expired. */
    List<String> free(Connection connection, List<byte[]> keys) throws SQLException {
        if (keys.isEmpty()) {
            return List.of();
        }
        try (PreparedStatement statement = connection.prepareStatement("SELECT lock_name FROM " + t + " WHERE lock_key IN (" + marks(keys.size())
                + ") AND (owner IS NULL OR expires_at <= " + now() + ")")) {
            for (int i = 0; i < keys.size(); i++) {
                statement.setBytes(i + 1, keys.get(i));
            }
            List<String> free = new ArrayList<>();
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    free.add(rows.getString(1));
                }
            }
            return free;
        }
    }

    /** Checks that the table has every column distlock uses (a table made for another version, or by hand, may not). */
    void checkColumns(Connection connection) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(
                "SELECT lock_key, lock_name, owner, fence, expires_at, acquired_at, last_owner, end_reason FROM " + t + " WHERE 1 = 0");
                ResultSet ignored = statement.executeQuery()) {
            // the columns exist
        }
    }

    /**
     * Returns whether lock_key alone is unique in the table (its primary key, or a unique index or
     * constraint on that one column), read from the database's catalog. Without that, two clients that
     * lock a new name at once could both insert its row and both hold the lock.
     */
    boolean keyIsUnique(Connection connection) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(uniqueKeyQuery())) {
            statement.setString(1, table.schema());
            statement.setString(2, table.unqualified());
            try (ResultSet row = statement.executeQuery()) {
                return row.next() && row.getLong(1) > 0;
            }
        }
    }

    /**
     * Returns the catalog query counting the unique indexes (primary key included) whose only column is
     * lock_key; parameters: the table's schema as written (null: the connection's current one), its name.
     */
    protected abstract String uniqueKeyQuery();

    /**
     * A lock's row as a renewal or release that changed nothing finds it.
     *
     * @param owner the holder's owner id, or null
     * @param millisLeft milliseconds until expires_at (zero or negative: expired)
     * @param lastOwner whose hold ended last, or null
     * @param endReason how it ended ('R', 'F', 'E'), or null
     * @param fence the fence of the latest acquisition
     */
    record RowState(@Nullable String owner, long millisLeft, @Nullable String lastOwner, @Nullable String endReason, long fence) {

        /** Returns whether someone holds an unexpired lease. */
        boolean held() {
            return owner != null && millisLeft > 0;
        }
    }
}
