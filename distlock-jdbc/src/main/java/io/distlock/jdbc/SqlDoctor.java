package io.distlock.jdbc;

import io.distlock.BackendUnavailableException;
import io.distlock.DoctorCheck;
import io.distlock.Finding;
import io.distlock.Finding.Severity;
import io.distlock.LockException;
import io.distlock.LockOptions;
import io.distlock.OpenOptions;
import io.distlock.spi.RoundTripProbe;
import io.distlock.spi.TargetParameters;
import io.distlock.spi.TargetUri;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import javax.sql.DataSource;

/**
 * The SQL doctor: reads a database's configuration and the client's tables, and judges what bears on lock safety with
 * distlock-jdbc's algorithm (one row per lock, leases on the database's clock; see {@link SqlDialect}). Read only.
 */
final class SqlDoctor {
    /*
     * It connects as the client would (the target's URL, its createTable parameter, the namespace as the table, the
     * DataSource or credentials offered as resources: TargetConnection) on one connection of its own, which it closes:
     * the settings it reads are then those the client's sessions start with (PostgreSQL's per-database and per-role
     * defaults, MariaDB's session variables, H2's URL settings). It only runs SELECTs, SHOW and catalog reads: it creates no table (a
     * missing one is judged by what the client's open would do) and takes no lock.
     *
     * Connecting waits at most the client's setup wait (the operation timeout, at least 10 s); then each read at most
     * that long (the network timeout). An unreachable server is BackendUnavailableException; one that refuses the
     * doctor (credentials, an unknown database) LockException, as open says. A check whose query the server refuses
     * (a privilege) is an UNKNOWN finding naming the refusal.
     */
    private SqlDoctor() {}

    /** Returns the catalogue, in the order findings come. */
    static List<DoctorCheck> checks() {
        return SqlDoctorCatalogue.CHECKS;
    }

    /**
     * Examines the database of {@code target} as a client opened with {@code options} would use it.
     *
     * @throws IllegalArgumentException if the target or the namespace is malformed
     * @throws BackendUnavailableException if the database cannot be reached in time
     * @throws LockException if it refuses the doctor's connection
     */
    static List<Finding> diagnose(String target, OpenOptions options) {
        TargetParameters parameters = TargetParameters.take(target, Set.of(JdbcBackendProvider.CREATE_TABLE));
        boolean createTable = parameters.bool(JdbcBackendProvider.CREATE_TABLE).orElse(true);
        LockTable table = LockTable.named(options.namespace().orElse(LockTable.DEFAULT_NAME));
        Duration timeout = options.operationTimeout().orElse(JdbcLockClient.DEFAULT_OPERATION_TIMEOUT);
        Duration lease = options.lockOptions().map(LockOptions::leaseTime).orElse(LockOptions.DEFAULT_LEASE_TIME);
        String where = TargetUri.mask(target);
        Connection connection = TargetConnection.open(parameters.target(), options, TargetConnection.waitFor(options), "the SQL doctor");
        try {
            return examine(connection, table, createTable, timeout, lease, options.resourceOf(DataSource.class));
        } catch (SQLException e) {
            throw failure(e, where);
        } catch (RoundTripFailed e) {
            throw failure(e.sql, where);
        } finally {
            SqlConnections.closeQuietly(connection);
        }
    }

    private static List<Finding> examine(Connection connection, LockTable table, boolean createTable, Duration timeout, Duration lease,
            Optional<DataSource> dataSource)
            throws SQLException {
        List<Finding> findings = new ArrayList<>();
        String version = connection.getMetaData().getDatabaseProductName() + " " + connection.getMetaData().getDatabaseProductVersion();
        Database database;
        try {
            database = Database.detect(connection.getMetaData());
        } catch (LockException unsupported) {
            findings.add(SqlDoctorCatalogue.VERSION.finding(Severity.RISKY, version, "the client refuses to open on it: " + unsupported.getMessage(),
                    SqlDoctorCatalogue.VERSION.fix()));
            return findings;
        }
        findings.add(SqlDoctorCatalogue.VERSION.ok(version, "a database distlock-jdbc supports (" + database + "), for the record"));
        SqlDialect dialect = database.dialect(table);
        ServerSettings settings = ServerSettings.of(database);
        findings.add(orUnknown(SqlDoctorCatalogue.READ_ONLY, connection, () -> settings.readOnly(connection)));
        findings.add(orUnknown(SqlDoctorCatalogue.LOCK_TABLE, connection,
                () -> SqlSchemaCheck.lockTable(connection, database, dialect, table, createTable)));
        findings.add(orUnknown(SqlDoctorCatalogue.QUEUE_TABLE, connection,
                () -> SqlSchemaCheck.queueTable(connection, database, dialect, table, createTable)));
        findings.add(orUnknown(SqlDoctorCatalogue.ISOLATION, connection, () -> SqlDoctorCatalogue.ISOLATION.ok(isolation(connection)
                + " for new sessions; the client's connections run at READ COMMITTED", "the client sets READ COMMITTED on each of its "
                + "connections, whatever the default: an acquire that meets another on the same row waits for it, then reads the row again "
                + "and finds it held")));
        findings.add(orUnknown(SqlDoctorCatalogue.TIMEOUTS, connection, () -> settings.timeouts(connection, timeout)));
        try {
            settings.multiPrimary(connection).ifPresent(findings::add);
        } catch (SQLException e) {
            findings.add(unknown(SqlDoctorCatalogue.MULTI_PRIMARY, connection, e));
        }
        findings.add(orUnknown(SqlDoctorCatalogue.CONNECTIONS, connection, () -> ConnectionHeadroom.judge(JdbcLockClient.DEFAULT_CONNECTIONS,
                dataSource, settings.connectionLimits(connection))));
        try (PreparedStatement ping = connection.prepareStatement("SELECT 1")) {
            findings.add(RoundTripProbe.judge(SqlDoctorCatalogue.LATENCY, () -> roundTrip(ping), lease));
        }
        return findings;
    }

    /** What isolation level a new session of this database and user starts with; the doctor's session has set none. */
    private static String isolation(Connection connection) throws SQLException {
        return switch (connection.getTransactionIsolation()) {
            case Connection.TRANSACTION_READ_UNCOMMITTED -> "READ UNCOMMITTED";
            case Connection.TRANSACTION_READ_COMMITTED -> "READ COMMITTED";
            case Connection.TRANSACTION_REPEATABLE_READ -> "REPEATABLE READ";
            case Connection.TRANSACTION_SERIALIZABLE -> "SERIALIZABLE";
            default -> "level " + connection.getTransactionIsolation();
        };
    }

    /** One read of a check. */
    @FunctionalInterface
    private interface Read {
        Finding run() throws SQLException;
    }

    /** Returns the check's finding, or an UNKNOWN one if the server refused its query; a lost connection is thrown. */
    private static Finding orUnknown(DoctorCheck check, Connection connection, Read read) throws SQLException {
        try {
            return read.run();
        } catch (SQLException e) {
            return unknown(check, connection, e);
        }
    }

    private static Finding unknown(DoctorCheck check, Connection connection, SQLException e) throws SQLException {
        if (SqlConnections.isConnectionError(e, connection)) {
            throw e;
        }
        return check.unknown("the server refused the doctor's query: " + e.getMessage() + " (SQLState " + e.getSQLState() + ")",
                "this could not be read with the client's user and privileges, so it is not judged");
    }

    private static void roundTrip(PreparedStatement ping) {
        try (ResultSet ignored = ping.executeQuery()) {
            // one round trip
        } catch (SQLException e) {
            throw new RoundTripFailed(e);
        }
    }

    /** A failed round trip of the latency probe, carried out of its lambda. */
    private static final class RoundTripFailed extends RuntimeException {
        private final SQLException sql;

        RoundTripFailed(SQLException sql) {
            super(sql);
            this.sql = sql;
        }
    }

    private static RuntimeException failure(SQLException e, String where) {
        return TargetConnection.failure(e, "the SQL doctor could not read " + where);
    }
}
