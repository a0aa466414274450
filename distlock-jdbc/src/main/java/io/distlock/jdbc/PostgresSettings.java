package io.distlock.jdbc;

import io.distlock.Finding;
import io.distlock.jdbc.SqlDoctorCatalogue.Limit;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * PostgreSQL's settings as the client's sessions get them: pg_settings shows the values of this session, which started
 * with the database's and the role's defaults (ALTER DATABASE/ROLE ... SET) like the client's will, and where each came
 * from.
 */
final class PostgresSettings implements ServerSettings {

    @Override
    public Finding readOnly(Connection connection) throws SQLException {
        boolean recovery;
        String defaultReadOnly;
        String source;
        String transactionReadOnly;
        try (PreparedStatement statement = connection.prepareStatement("SELECT pg_is_in_recovery(), s.setting, s.source, "
                + "current_setting('transaction_read_only') FROM pg_settings s WHERE s.name = 'default_transaction_read_only'");
                ResultSet row = statement.executeQuery()) {
            row.next();
            recovery = row.getBoolean(1);
            defaultReadOnly = row.getString(2);
            source = row.getString(3);
            transactionReadOnly = row.getString(4);
        }
        String observed = "pg_is_in_recovery " + recovery + ", default_transaction_read_only " + defaultReadOnly + " (from: " + source
                + "), transaction_read_only " + transactionReadOnly;
        List<String> reasons = new ArrayList<>();
        String fix = "";
        if (recovery) {
            reasons.add("a standby (pg_is_in_recovery)" + SqlDoctorCatalogue.REFUSED);
            fix = "point the target at the primary (with pgjdbc: list every host and add targetServerType=primary)";
        } else if (SqlDoctorCatalogue.isOn(defaultReadOnly)) {
            reasons.add("the client's sessions start read-only (default_transaction_read_only on, set in: " + source + ")" + SqlDoctorCatalogue.REFUSED);
            fix = reset(connection, "default_transaction_read_only", source);
        } else if (SqlDoctorCatalogue.isOn(transactionReadOnly)) {
            reasons.add("the client's transactions start read-only (transaction_read_only on)" + SqlDoctorCatalogue.REFUSED);
            fix = "find what sets transaction_read_only for the client's sessions (the target's options) and remove it";
        }
        return SqlDoctorCatalogue.readOnly(connection, observed, reasons, fix);
    }

    @Override
    public Finding timeouts(Connection connection, Duration operationTimeout) throws SQLException {
        List<Limit> limits = new ArrayList<>();
        StringBuilder observed = new StringBuilder();
        try (PreparedStatement statement = connection.prepareStatement("SELECT name, setting, source FROM pg_settings WHERE name IN "
                + "('statement_timeout', 'lock_timeout', 'idle_in_transaction_session_timeout') ORDER BY name");
                ResultSet rows = statement.executeQuery()) {
            while (rows.next()) {
                String name = rows.getString(1);
                Duration value = Duration.ofMillis(Long.parseLong(rows.getString(2))); // unit ms, 0: off
                observed.append(observed.isEmpty() ? "" : ", ").append(name).append(' ').append(value.isZero() ? "0 (off)"
                        : SqlDoctorCatalogue.millis(value)).append(" (from: ").append(rows.getString(3)).append(')');
                if (!name.startsWith("idle")) { // the client leaves no transaction idle: its transactions are a few statements in a row
                    limits.add(new Limit(name, value, name.equals("lock_timeout"), name + " off or at least "
                            + SqlDoctorCatalogue.millis(operationTimeout) + " (" + reset(connection, name, rows.getString(3)) + ")"));
                }
            }
        }
        return SqlDoctorCatalogue.timeouts(observed.toString(), limits, operationTimeout);
    }

    /**
     * Reads max_connections less the slots reserved (for superusers; PostgreSQL 16's reserved_connections too, as an
     * ordinary role cannot use them), and the role's and the database's CONNECTION LIMIT; none of them binds a superuser
     * but max_connections itself. Counts client backends only (pg_stat_activity also lists the server's own processes).
     */
    @Override
    public List<ConnectionHeadroom.Limit> connectionLimits(Connection connection) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement("SELECT current_setting('max_connections')::int, "
                + "current_setting('superuser_reserved_connections')::int + coalesce(current_setting('reserved_connections', true), '0')::int, "
                + "r.rolsuper, r.rolconnlimit, d.datconnlimit, "
                + "(SELECT count(*) FROM pg_stat_activity a WHERE a.backend_type = 'client backend'), "
                + "(SELECT count(*) FROM pg_stat_activity a WHERE a.backend_type = 'client backend' AND a.usename = current_user), "
                + "(SELECT count(*) FROM pg_stat_activity a WHERE a.backend_type = 'client backend' AND a.datname = current_database()) "
                + "FROM pg_roles r, pg_database d WHERE r.rolname = current_user AND d.datname = current_database()");
                ResultSet row = statement.executeQuery()) {
            row.next();
            int max = row.getInt(1);
            int reserved = row.getInt(2);
            boolean superuser = row.getBoolean(3);
            List<ConnectionHeadroom.Limit> limits = new ArrayList<>();
            if (superuser) {
                limits.add(new ConnectionHeadroom.Limit("max_connections", max, row.getInt(6)));
                return limits;
            }
            limits.add(new ConnectionHeadroom.Limit("max_connections less " + reserved + " reserved", max - reserved, row.getInt(6)));
            if (row.getInt(4) >= 0) {
                limits.add(new ConnectionHeadroom.Limit("CONNECTION LIMIT of role " + connection.getMetaData().getUserName(), row.getInt(4), row.getInt(7)));
            }
            if (row.getInt(5) >= 0) {
                limits.add(new ConnectionHeadroom.Limit("CONNECTION LIMIT of database " + connection.getCatalog(), row.getInt(5), row.getInt(8)));
            }
            return limits;
        }
    }

    /** Returns the statement that undoes a setting where pg_settings says it came from. */
    private static String reset(Connection connection, String setting, String source) throws SQLException {
        String role = connection.getMetaData().getUserName();
        String database = connection.getCatalog();
        return switch (source) {
            case "user" -> "ALTER ROLE " + role + " RESET " + setting;
            case "database" -> "ALTER DATABASE " + database + " RESET " + setting;
            case "database user" -> "ALTER ROLE " + role + " IN DATABASE " + database + " RESET " + setting;
            case "client" -> "remove " + setting + " from the target's options";
            case "configuration file" -> setting + " in postgresql.conf (or ALTER SYSTEM RESET " + setting + ")";
            default -> setting + " (set by: " + source + ")";
        };
    }
}
