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
    protected String keyType() {
        return "VARBINARY(32) PRIMARY KEY";
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
    long take(Connection connection, byte[] key, String owner, long leaseMillis) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement("SELECT fence FROM FINAL TABLE (" + takeStatement() + ")")) {
            bindTake(statement, 1, key, owner, leaseMillis);
            try (ResultSet row = statement.executeQuery()) {
                return row.next() ? row.getLong(1) : 0;
            }
        }
    }
}
