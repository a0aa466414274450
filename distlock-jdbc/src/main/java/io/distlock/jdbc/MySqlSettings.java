package io.distlock.jdbc;

import io.distlock.Finding;
import io.distlock.jdbc.SqlDoctorCatalogue.Limit;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * MySQL's and MariaDB's settings as the client's sessions get them (SHOW VARIABLES: the session's values, and the
 * global ones of global-only variables). A variable one of them lacks (super_read_only on MariaDB, max_statement_time
 * on MySQL, wsrep_on without Galera) is simply not listed.
 */
final class MySqlSettings implements ServerSettings {
    private static final List<String> NAMES = List.of("read_only", "super_read_only", "innodb_read_only", "transaction_read_only",
            "tx_read_only", "innodb_lock_wait_timeout", "max_statement_time", "wait_timeout", "wsrep_on");

    @Override
    public Finding readOnly(Connection connection) throws SQLException {
        Map<String, String> variables = variables(connection);
        List<String> reasons = new ArrayList<>();
        String fix = "";
        if (SqlDoctorCatalogue.isOn(variables.get("innodb_read_only"))) {
            reasons.add("InnoDB is read-only (innodb_read_only, set at startup): no user can write" + SqlDoctorCatalogue.REFUSED);
            fix = "start the server without innodb_read_only, or point the target at the primary";
        } else if (SqlDoctorCatalogue.isOn(variables.get("super_read_only"))) {
            reasons.add("super_read_only is on (a replica, or read-only mode switched on): no user can write" + SqlDoctorCatalogue.REFUSED);
            fix = "point the target at the primary, or SET GLOBAL super_read_only = OFF, read_only = OFF";
        } else if (SqlDoctorCatalogue.isOn(variables.get("read_only"))) {
            reasons.add("read_only is " + variables.get("read_only") + " (a replica, or read-only mode switched on): writes of users without "
                    + "SUPER (MariaDB: READ ONLY ADMIN) are refused, so every acquire fails; a user with it still writes, but on a replica "
                    + "its locks are invisible to clients of the primary and replication can overwrite them");
            fix = "point the target at the primary, or SET GLOBAL read_only = OFF";
        } else if (SqlDoctorCatalogue.isOn(transactionReadOnly(variables))) {
            reasons.add("the client's transactions start read-only (transaction_read_only)" + SqlDoctorCatalogue.REFUSED);
            fix = "SET GLOBAL transaction_read_only = OFF, or remove it from the target's session variables";
        }
        String observed = "read_only " + variables.getOrDefault("read_only", "?") + ", innodb_read_only " + variables.getOrDefault("innodb_read_only", "?")
                + (variables.containsKey("super_read_only") ? ", super_read_only " + variables.get("super_read_only") : "")
                + ", transaction_read_only " + Optional.ofNullable(transactionReadOnly(variables)).orElse("?");
        return SqlDoctorCatalogue.readOnly(connection, observed, reasons, fix);
    }

    /** MariaDB before 11.1 and MySQL before 8.0.3 call it tx_read_only. */
    private static @Nullable String transactionReadOnly(Map<String, String> variables) {
        return variables.getOrDefault("transaction_read_only", variables.get("tx_read_only"));
    }

    @Override
    public Finding timeouts(Connection connection, Duration operationTimeout) throws SQLException {
        Map<String, String> variables = variables(connection);
        List<Limit> limits = new ArrayList<>();
        StringBuilder observed = new StringBuilder();
        String least = " at least " + SqlDoctorCatalogue.millis(operationTimeout);
        seconds(variables, "innodb_lock_wait_timeout", observed).ifPresent(value -> limits.add(new Limit("innodb_lock_wait_timeout", value, true,
                "innodb_lock_wait_timeout" + least + " (the default is 50: SET GLOBAL innodb_lock_wait_timeout = 50 and in the server's "
                        + "configuration, or remove it from the target's session variables)")));
        seconds(variables, "max_statement_time", observed).ifPresent(value -> limits.add(new Limit("max_statement_time", value, false,
                "max_statement_time 0 (off) or" + least + " (SET GLOBAL max_statement_time = 0 and in the server's configuration, or "
                        + "remove it from the target's session variables)")));
        // wait_timeout closes idle connections: the client replaces a closed one on its next use; for the record only
        seconds(variables, "wait_timeout", observed);
        return SqlDoctorCatalogue.timeouts(observed.toString(), limits, operationTimeout);
    }

    @Override
    public Optional<Finding> multiPrimary(Connection connection) throws SQLException {
        String wsrepOn = variables(connection).get("wsrep_on");
        String clusterSize = null;
        if (wsrepOn != null) {
            try (PreparedStatement statement = connection.prepareStatement("SHOW GLOBAL STATUS LIKE 'wsrep_cluster_size'");
                    ResultSet row = statement.executeQuery()) {
                clusterSize = row.next() ? row.getString(2) : null;
            }
        }
        return Optional.of(SqlDoctorCatalogue.galera(wsrepOn, clusterSize));
    }

    /**
     * Reads max_connections against Threads_connected (a user with SUPER or CONNECTION ADMIN has one more, not counted
     * here), and the session's max_user_connections, which shows the account's own limit where it has one (0: none)
     * against the user's connections (PROCESSLIST shows a user without PROCESS its own).
     */
    @Override
    public List<ConnectionHeadroom.Limit> connectionLimits(Connection connection) throws SQLException {
        List<ConnectionHeadroom.Limit> limits = new ArrayList<>();
        try (PreparedStatement statement = connection.prepareStatement("SELECT @@GLOBAL.max_connections, @@SESSION.max_user_connections, "
                + "(SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE USER = SUBSTRING_INDEX(USER(), '@', 1))");
                ResultSet row = statement.executeQuery();
                PreparedStatement status = connection.prepareStatement("SHOW GLOBAL STATUS LIKE 'Threads_connected'");
                ResultSet connected = status.executeQuery()) {
            row.next();
            limits.add(new ConnectionHeadroom.Limit("max_connections", row.getInt(1), connected.next() ? connected.getInt(2) : 0));
            if (row.getInt(2) > 0) {
                limits.add(new ConnectionHeadroom.Limit("max_user_connections of " + connection.getMetaData().getUserName(), row.getInt(2),
                        row.getInt(3)));
            }
        }
        return limits;
    }

    /** Reads a setting in seconds (fractions allowed) into {@code observed}; empty if the server has no such variable. */
    private static Optional<Duration> seconds(Map<String, String> variables, String name, StringBuilder observed) {
        String value = variables.get(name);
        if (value == null) {
            return Optional.empty();
        }
        Duration duration = Duration.ofMillis(new BigDecimal(value.trim()).movePointRight(3).longValue());
        observed.append(observed.isEmpty() ? "" : ", ").append(name).append(' ').append(duration.isZero() ? "0 (off)" : SqlDoctorCatalogue.millis(duration));
        return Optional.of(duration);
    }

    private static Map<String, String> variables(Connection connection) throws SQLException {
        Map<String, String> variables = new HashMap<>();
        try (PreparedStatement statement = connection.prepareStatement("SHOW VARIABLES WHERE Variable_name IN ('"
                + String.join("', '", NAMES) + "')"); ResultSet rows = statement.executeQuery()) {
            while (rows.next()) {
                variables.put(rows.getString(1).toLowerCase(Locale.ROOT), rows.getString(2));
            }
        }
        return variables;
    }
}
