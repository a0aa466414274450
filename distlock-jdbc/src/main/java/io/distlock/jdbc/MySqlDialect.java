package io.distlock.jdbc;

import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * MySQL 8 and MariaDB 10.6+ (InnoDB): {@code UTC_TIMESTAMP(6)} into {@code DATETIME(6)} columns (no
 * session time zone involved), the fence read through {@code LAST_INSERT_ID(expr)}, which the UPDATE
 * sets and the server returns with its answer.
 */
final class MySqlDialect extends SqlDialect {

    /*
     * The combined statements, built at first use per number of requests (1 to MAX_COMBINED): arrays indexed by that
     * number rather than statement(id, build), whose ids would be strings made and hashed per call.
     */
    /** {@link #takeAll}'s statements by number of requests: the take, then the read of the fences of the rows it took. */
    private final String[] takeAll = new String[SqlConnections.MAX_COMBINED + 1];
    private final String[] readTaken = new String[SqlConnections.MAX_COMBINED + 1];
    /** {@link #releaseAll}'s statements by number of requests. */
    private final String[] releaseAll = new String[SqlConnections.MAX_COMBINED + 1];

    MySqlDialect(LockTable table) {
        super(table);
    }

    /*
     * Combined calls. Neither MySQL nor MariaDB (before 13.0) has UPDATE ... RETURNING, and a multi-table UPDATE (a join
     * with the requests) has no left-to-right order of assignments, which the take and the release rely on. So a combined
     * call is one single-table UPDATE of the requested keys (IN), each row's own values picked by CASE on its key, rows
     * locked in key order (ORDER BY: two combined calls never wait on each other in a circle). A take then reads the
     * fences of the rows that are now the requester's (a second round trip: still two for any number of requests, where
     * each alone takes one); a row that expired and was taken by another in between reads as not granted and goes on
     * alone, as a take that found the row held does. A release learns only how many rows it ended: all of them, or the
     * caller reads each row.
     */
    @Override
    boolean combines() {
        return true;
    }

    @Override
    long[] takeAll(Connection connection, List<byte[]> keys, List<String> owners, List<Long> leaseMillis, List<Integer> tokens) throws SQLException {
        int n = keys.size();
        try (PreparedStatement take = connection.prepareStatement(takeAllStatement(n))) {
            int index = 1;
            index = bindByKey(take, index, keys, owners); // fence: owner = the requester's
            index = bindByKey(take, index, keys, tokens);
            index = bindByKey(take, index, keys, owners); // owner
            index = bindByKey(take, index, keys, leaseMillis);
            index = bindKeys(take, index, keys);
            bindByKey(take, index, keys, owners); // WHERE owner = the requester's
            take.executeUpdate();
        }
        long[] last = new long[n];
        try (PreparedStatement read = connection.prepareStatement(readTakenStatement(n))) {
            int index = bindKeys(read, 1, keys);
            bindByKey(read, index, keys, owners);
            Map<ByteBuffer, Integer> positions = positions(keys);
            try (ResultSet rows = read.executeQuery()) {
                while (rows.next()) {
                    last[positionOf(positions, rows.getBytes(1))] = rows.getLong(2);
                }
            }
        }
        return last;
    }

    @Override
    boolean[] releaseAll(Connection connection, List<byte[]> keys, List<String> owners) throws SQLException {
        int n = keys.size();
        try (PreparedStatement release = connection.prepareStatement(releaseAllStatement(n))) {
            int index = bindKeys(release, 1, keys);
            bindByKey(release, index, keys, owners);
            boolean all = release.executeUpdate() == n;
            boolean[] released = new boolean[n];
            Arrays.fill(released, all);
            return released;
        }
    }

    private String takeAllStatement(int n) {
        String statement = takeAll[n];
        if (statement == null) {
            String ownerOf = byKey(n);
            statement = "UPDATE " + t + " SET fence = CASE WHEN owner = " + ownerOf + " AND expires_at > " + now()
                    + " THEN fence ELSE fence + " + byKey(n) + " END, owner = " + ownerOf + ", expires_at = " + now()
                    + " + INTERVAL (" + byKey(n) + " * 1000) MICROSECOND, acquired_at = " + now()
                    + " WHERE lock_key IN (" + marks(n) + ") AND (owner IS NULL OR expires_at <= " + now() + " OR owner = " + ownerOf + ")"
                    + " ORDER BY lock_key";
            takeAll[n] = statement;
        }
        return statement;
    }

    private String readTakenStatement(int n) {
        String statement = readTaken[n];
        if (statement == null) {
            statement = "SELECT lock_key, fence FROM " + t + " WHERE lock_key IN (" + marks(n) + ") AND owner = " + byKey(n)
                    + " AND expires_at > " + now();
            readTaken[n] = statement;
        }
        return statement;
    }

    private String releaseAllStatement(int n) {
        String statement = releaseAll[n];
        if (statement == null) {
            statement = endStatementWhere('R', "lock_key IN (" + marks(n) + ") AND owner = " + byKey(n) + " AND expires_at > " + now())
                    + " ORDER BY lock_key";
            releaseAll[n] = statement;
        }
        return statement;
    }

    /** {@code CASE lock_key WHEN ? THEN ? ... END} for {@code n} requests: parameters key, value of each in turn. */
    private static String byKey(int n) {
        return "CASE lock_key" + " WHEN ? THEN ?".repeat(n) + " END";
    }

    private static int bindKeys(PreparedStatement statement, int first, List<byte[]> keys) throws SQLException {
        int index = first;
        for (byte[] key : keys) {
            statement.setBytes(index++, key);
        }
        return index;
    }

    private static int bindByKey(PreparedStatement statement, int first, List<byte[]> keys, List<?> values) throws SQLException {
        int index = first;
        for (int i = 0; i < keys.size(); i++) {
            statement.setBytes(index++, keys.get(i));
            statement.setObject(index++, values.get(i));
        }
        return index;
    }

    @Override
    protected String keyColumnType() {
        return "BINARY(32)";
    }

    @Override
    protected String keyType() {
        return "BINARY(32) NOT NULL PRIMARY KEY";
    }

    @Override
    protected String nameType() {
        return "VARCHAR(1024) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL";
    }

    @Override
    protected String ownerType() {
        return "VARCHAR(200) CHARACTER SET ascii COLLATE ascii_bin";
    }

    @Override
    protected String timeType() {
        return "DATETIME(6)"; // UTC: UTC_TIMESTAMP(6), no session time zone involved
    }

    @Override
    protected String tableOptions() {
        return " ENGINE=InnoDB";
    }

    /** information_schema.STATISTICS: unique indexes (PRIMARY included) whose first column is lock_key and that have no second. */
    @Override
    protected String uniqueKeyQuery() {
        return "SELECT COUNT(*) FROM information_schema.STATISTICS s WHERE s.TABLE_SCHEMA = COALESCE(?, DATABASE()) AND s.TABLE_NAME = ?"
                + " AND s.NON_UNIQUE = 0 AND s.SEQ_IN_INDEX = 1 AND s.COLUMN_NAME = 'lock_key'"
                + " AND NOT EXISTS (SELECT 1 FROM information_schema.STATISTICS o WHERE o.TABLE_SCHEMA = s.TABLE_SCHEMA"
                + " AND o.TABLE_NAME = s.TABLE_NAME AND o.INDEX_NAME = s.INDEX_NAME AND o.SEQ_IN_INDEX > 1)";
    }

    @Override
    protected String now() {
        return "UTC_TIMESTAMP(6)";
    }

    @Override
    protected String nowPlusMillis() {
        return "UTC_TIMESTAMP(6) + INTERVAL (? * 1000) MICROSECOND";
    }

    @Override
    protected String millisUntilExpiry() {
        return "FLOOR(TIMESTAMPDIFF(MICROSECOND, UTC_TIMESTAMP(6), expires_at) / 1000)";
    }

    @Override
    boolean isDuplicateKey(SQLException e) {
        return e.getErrorCode() == 1062;
    }

    @Override
    protected String takeStatement() {
        // MySQL assigns left to right, each assignment seeing the ones before: fence must come first, while
        // owner and expires_at still hold the old values its CASE reads
        return super.takeStatement().replaceFirst("SET fence = (CASE .*? END)", "SET fence = LAST_INSERT_ID($1)");
    }

    @Override
    long take(Connection connection, byte[] key, String owner, long leaseMillis, int tokens) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(statement("take", this::takeStatement), Statement.RETURN_GENERATED_KEYS)) {
            bindTake(statement, 1, key, owner, leaseMillis, tokens);
            if (statement.executeUpdate() != 1) {
                return 0;
            }
            try (ResultSet keys = statement.getGeneratedKeys()) {
                if (keys.next() && keys.getLong(1) > 0) {
                    return keys.getLong(1);
                }
            }
        }
        try (Statement statement = connection.createStatement(); ResultSet row = statement.executeQuery("SELECT LAST_INSERT_ID()")) {
            row.next();
            return row.getLong(1);
        }
    }
}
