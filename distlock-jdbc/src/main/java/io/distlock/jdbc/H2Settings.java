package io.distlock.jdbc;

import io.distlock.Finding;
import io.distlock.jdbc.SqlDoctorCatalogue.Limit;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;

/**
 * H2's settings of this session, which the target's URL sets as it does the client's (LOCK_TIMEOUT, QUERY_TIMEOUT,
 * ACCESS_MODE_DATA). H2 has one node and no standby.
 */
final class H2Settings implements ServerSettings {

    @Override
    public Finding readOnly(Connection connection) throws SQLException {
        boolean readOnly;
        try (PreparedStatement statement = connection.prepareStatement("SELECT READONLY()"); ResultSet row = statement.executeQuery()) {
            row.next();
            readOnly = row.getBoolean(1);
        }
        return SqlDoctorCatalogue.readOnly(connection, "READONLY() " + readOnly, readOnly ? List.of("the database is open read-only (a "
                + "read-only file, or ACCESS_MODE_DATA=r in the URL)" + SqlDoctorCatalogue.REFUSED) : List.of(),
                "open the database writable: remove ACCESS_MODE_DATA=r from the URL, and let the server's user write its files");
    }

    @Override
    public Finding timeouts(Connection connection, Duration operationTimeout) throws SQLException {
        Duration lockTimeout;
        Duration queryTimeout;
        try (PreparedStatement statement = connection.prepareStatement("SELECT LOCK_TIMEOUT(), (SELECT SETTING_VALUE FROM "
                + "INFORMATION_SCHEMA.SETTINGS WHERE SETTING_NAME = 'QUERY_TIMEOUT')"); ResultSet row = statement.executeQuery()) {
            row.next();
            // 0 is not off in H2 but no wait at all: a lock held by another session fails the statement at once
            lockTimeout = Duration.ofMillis(row.getLong(1)).isZero() ? Duration.ofNanos(1) : Duration.ofMillis(row.getLong(1));
            String query = row.getString(2);
            queryTimeout = Duration.ofMillis(query == null ? 0 : Long.parseLong(query.trim()));
        }
        String observed = "LOCK_TIMEOUT " + SqlDoctorCatalogue.millis(lockTimeout) + " (H2's default: 2 s), QUERY_TIMEOUT "
                + (queryTimeout.isZero() ? "0 (off)" : SqlDoctorCatalogue.millis(queryTimeout));
        return SqlDoctorCatalogue.timeouts(observed, List.of(
                new Limit("LOCK_TIMEOUT", lockTimeout, true, "LOCK_TIMEOUT=" + Math.max(10_000, operationTimeout.toMillis())
                        + " (milliseconds) in the target's URL"), new Limit("QUERY_TIMEOUT", queryTimeout, false, "QUERY_TIMEOUT=0 (off) in the "
                        + "target's URL, or at least " + SqlDoctorCatalogue.millis(operationTimeout))), operationTimeout);
    }
}
