package io.distlock.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/** H2 2.x: {@code CURRENT_TIMESTAMP} (per statement in autocommit), the fence read from {@code FINAL TABLE (UPDATE ...)}. */
final class H2Dialect extends SqlDialect {

    H2Dialect(LockTable table) {
        super(table);
    }

    @Override
    protected String keyColumnType() {
        return "VARBINARY(32)";
    }

    @Override
    protected String keyType() {
        return "VARBINARY(32) PRIMARY KEY";
    }

    /**
     * INFORMATION_SCHEMA.INDEXES and INDEX_COLUMNS: primary keys and unique indexes whose first column is
     * lock_key and that have no second. Names compared without case: H2 folds unquoted names to upper
     * case, or to lower case in some compatibility modes.
     */
    @Override
    protected String uniqueKeyQuery() {
        return "SELECT COUNT(*) FROM INFORMATION_SCHEMA.INDEX_COLUMNS c JOIN INFORMATION_SCHEMA.INDEXES i"
                + " ON i.INDEX_SCHEMA = c.INDEX_SCHEMA AND i.INDEX_NAME = c.INDEX_NAME"
                + " WHERE UPPER(c.TABLE_SCHEMA) = UPPER(COALESCE(?, CURRENT_SCHEMA)) AND UPPER(c.TABLE_NAME) = UPPER(?)"
                + " AND UPPER(c.COLUMN_NAME) = 'LOCK_KEY' AND c.ORDINAL_POSITION = 1 AND i.INDEX_TYPE_NAME IN ('PRIMARY KEY', 'UNIQUE INDEX')"
                + " AND NOT EXISTS (SELECT 1 FROM INFORMATION_SCHEMA.INDEX_COLUMNS o WHERE o.INDEX_SCHEMA = c.INDEX_SCHEMA"
                + " AND o.INDEX_NAME = c.INDEX_NAME AND o.ORDINAL_POSITION > 1)";
    }

    @Override
    protected String now() {
        return "CURRENT_TIMESTAMP(6)";
    }

    @Override
    protected String nowPlusMillis() {
        return "DATEADD(MILLISECOND, CAST(? AS BIGINT), CURRENT_TIMESTAMP(6))";
    }

    @Override
    protected String millisUntilExpiry() {
        return "DATEDIFF(MILLISECOND, CURRENT_TIMESTAMP(6), expires_at)";
    }

    @Override
    boolean isDuplicateKey(SQLException e) {
        return "23505".equals(e.getSQLState());
    }

    @Override
    long take(Connection connection, byte[] key, String owner, long leaseMillis, int tokens) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(statement("take", () -> "SELECT fence FROM FINAL TABLE (" + takeStatement() + ")"))) {
            bindTake(statement, 1, key, owner, leaseMillis, tokens);
            try (ResultSet row = statement.executeQuery()) {
                return row.next() ? row.getLong(1) : 0;
            }
        }
    }
}
