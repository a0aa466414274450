package io.distlock.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * MySQL 8 and MariaDB 10.6+ (InnoDB): {@code UTC_TIMESTAMP(6)} into {@code DATETIME(6)} columns (no
 * session time zone involved), the fence read through {@code LAST_INSERT_ID(expr)}, which the UPDATE
 * sets and the server returns with its answer.
 */
final class MySqlDialect extends SqlDialect {

    MySqlDialect(LockTable table) {
        super(table);
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
        try (PreparedStatement statement = connection.prepareStatement(takeStatement(), Statement.RETURN_GENERATED_KEYS)) {
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
