package io.distlock.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import org.jspecify.annotations.Nullable;

/**
 * PostgreSQL: {@code clock_timestamp()} (the time of the call, not of the transaction), the fence read
 * with {@code RETURNING}, and a {@code pg_notify} on the table's channel in the statement that frees a
 * lock, delivered when it commits.
 */
final class PostgresDialect extends SqlDialect {

    PostgresDialect(LockTable table) {
        super(table);
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
        try (PreparedStatement statement = connection.prepareStatement(takeStatement() + " RETURNING fence")) {
            bindTake(statement, 1, key, owner, leaseMillis, tokens);
            try (ResultSet row = statement.executeQuery()) {
                return row.next() ? row.getLong(1) : 0;
            }
        }
    }

    @Override
    boolean release(Connection connection, byte[] key, String name, String owner) throws SQLException {
        return endAndNotify(connection, endStatement('R', "owner = ? AND expires_at > " + now()), key, owner, null);
    }

    @Override
    boolean forceRelease(Connection connection, byte[] key, String name, String owner, long fence) throws SQLException {
        return endAndNotify(connection, endStatement('F', FORCE_RELEASE_CONDITION + now()), key, owner, fence);
    }

    /**
     * Runs an end statement (parameters key and, if not null, owner and fence) and notifies the channel with the lock's
     * name if it ended a hold.
     */
    private boolean endAndNotify(Connection connection, String end, byte[] key, @Nullable String owner, @Nullable Long fence) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement("WITH ended AS (" + end + " RETURNING lock_name) "
                + "SELECT pg_notify(?, lock_name) FROM ended")) {
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
