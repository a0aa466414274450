package io.distlock.jdbc;

import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * PostgreSQL: {@code clock_timestamp()} (the time of the call, not of the transaction), the fence read
 * with {@code RETURNING}, and a {@code pg_notify} on the table's channel in the statement that frees a
 * lock, delivered when it commits.
 */
final class PostgresDialect extends SqlDialect {

    /** {@link #takeAll}'s statement: the take of {@link #takeStatement()}, for the rows of four arrays. */
    private final String takeAll;
    /** {@link #releaseAll}'s statement: the release's end statement for the rows of two arrays, notifying each name ended. */
    private final String releaseAll;

    PostgresDialect(LockTable table) {
        super(table);
        // a request's columns in r: k (key), o (owner), ms (lease), n (tokens); SET's right-hand sides read the old row
        this.takeAll = "UPDATE " + t + " AS l SET fence = CASE WHEN l.owner = r.o AND l.expires_at > clock_timestamp() THEN l.fence"
                + " ELSE l.fence + r.n END, owner = r.o, expires_at = clock_timestamp() + r.ms * INTERVAL '1 millisecond',"
                + " acquired_at = clock_timestamp()"
                + " FROM unnest(CAST(? AS BYTEA[]), CAST(? AS TEXT[]), CAST(? AS BIGINT[]), CAST(? AS BIGINT[])) AS r(k, o, ms, n)"
                + " WHERE l.lock_key = r.k AND (l.owner IS NULL OR l.expires_at <= clock_timestamp() OR l.owner = r.o)"
                + " RETURNING l.lock_key, l.fence";
        this.releaseAll = "WITH ended AS (UPDATE " + t + " AS l SET last_owner = l.owner, owner = NULL, end_reason = 'R',"
                + " expires_at = clock_timestamp() FROM unnest(CAST(? AS BYTEA[]), CAST(? AS TEXT[])) AS r(k, o)"
                + " WHERE l.lock_key = r.k AND l.owner = r.o AND l.expires_at > clock_timestamp() RETURNING l.lock_key, l.lock_name)"
                + " SELECT lock_key, pg_notify(?, lock_name) FROM ended";
    }

    @Override
    boolean combines() {
        return true;
    }

    @Override
    long[] takeAll(Connection connection, List<byte[]> keys, List<String> owners, List<Long> leaseMillis, List<Integer> tokens) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(takeAll)) {
            statement.setArray(1, connection.createArrayOf("bytea", keys.toArray(new byte[0][])));
            statement.setArray(2, connection.createArrayOf("text", owners.toArray(new String[0])));
            statement.setArray(3, connection.createArrayOf("bigint", leaseMillis.toArray(new Long[0])));
            statement.setArray(4, connection.createArrayOf("bigint", tokens.stream().map(Integer::longValue).toArray(Long[]::new)));
            long[] last = new long[keys.size()];
            Map<ByteBuffer, Integer> positions = positions(keys);
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    last[positionOf(positions, rows.getBytes(1))] = rows.getLong(2);
                }
            }
            return last;
        }
    }

    @Override
    boolean[] releaseAll(Connection connection, List<byte[]> keys, List<String> owners) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(releaseAll)) {
            statement.setArray(1, connection.createArrayOf("bytea", keys.toArray(new byte[0][])));
            statement.setArray(2, connection.createArrayOf("text", owners.toArray(new String[0])));
            statement.setString(3, channel());
            boolean[] released = new boolean[keys.size()];
            Map<ByteBuffer, Integer> positions = positions(keys);
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    released[positionOf(positions, rows.getBytes(1))] = true;
                }
            }
            return released;
        }
    }

    /** Returns the LISTEN/NOTIFY channel of the table: its unqualified name. */
    String channel() {
        return table.simpleName();
    }

    @Override
    protected String keyColumnType() {
        return "BYTEA";
    }

    @Override
    protected String keyType() {
        return "BYTEA PRIMARY KEY";
    }

    /** pg_index: valid unique indexes (the primary key's too) on lock_key alone, not partial, not on an expression. */
    @Override
    protected String uniqueKeyQuery() {
        return "SELECT count(*) FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]"
                + " WHERE i.indrelid = to_regclass(concat(CAST(? AS text) || '.', CAST(? AS text)))"
                + " AND i.indisunique AND i.indisvalid AND i.indnkeyatts = 1 AND i.indpred IS NULL AND i.indexprs IS NULL AND a.attname = 'lock_key'";
    }

    @Override
    protected String now() {
        return "clock_timestamp()";
    }

    @Override
    protected String nowPlusMillis() {
        return "clock_timestamp() + CAST(? AS BIGINT) * INTERVAL '1 millisecond'";
    }

    @Override
    protected String millisUntilExpiry() {
        return "CAST(FLOOR(EXTRACT(EPOCH FROM (expires_at - clock_timestamp())) * 1000) AS BIGINT)";
    }

    @Override
    void notifyQueue(Connection connection, String watchKey) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement("SELECT pg_notify(?, ?)")) {
            statement.setString(1, channel());
            statement.setString(2, watchKey);
            statement.executeQuery().close();
        }
    }

    @Override
    boolean isDuplicateKey(SQLException e) {
        return "23505".equals(e.getSQLState());
    }

    @Override
    long take(Connection connection, byte[] key, String owner, long leaseMillis, int tokens) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(statement("take", () -> takeStatement() + " RETURNING fence"))) {
            bindTake(statement, 1, key, owner, leaseMillis, tokens);
            try (ResultSet row = statement.executeQuery()) {
                return row.next() ? row.getLong(1) : 0;
            }
        }
    }

    @Override
    boolean release(Connection connection, byte[] key, String name, String owner) throws SQLException {
        return endAndNotify(connection, statement("release-notifying", () -> notifying(endStatement('R', "owner = ? AND expires_at > " + now()))), key, owner,
                null);
    }

    @Override
    boolean forceRelease(Connection connection, byte[] key, String name, String owner, long fence) throws SQLException {
        return endAndNotify(connection, notifying(endStatement('F', FORCE_RELEASE_CONDITION + now())), key, owner, fence);
    }

    /** {@code end}, an end statement, that also notifies the channel (the last parameter) with the lock's name if it ended a hold. */
    private static String notifying(String end) {
        return "WITH ended AS (" + end + " RETURNING lock_name) SELECT pg_notify(?, lock_name) FROM ended";
    }

    /** Runs a {@link #notifying} end statement (parameters key and, if not null, owner and fence, then the channel). */
    private boolean endAndNotify(Connection connection, String endAndNotify, byte[] key, @Nullable String owner, @Nullable Long fence)
            throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(endAndNotify)) {
            int index = 1;
            statement.setBytes(index++, key);
            if (owner != null) {
                statement.setString(index++, owner);
            }
            if (fence != null) {
                statement.setLong(index++, fence);
            }
            statement.setString(index, channel());
            try (ResultSet row = statement.executeQuery()) {
                return row.next();
            }
        }
    }
}
