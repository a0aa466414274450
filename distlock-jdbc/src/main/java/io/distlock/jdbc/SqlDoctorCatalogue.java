package io.distlock.jdbc;

import io.distlock.DoctorCheck;
import io.distlock.Finding;
import io.distlock.Finding.Severity;
import io.distlock.spi.RoundTripProbe;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The SQL doctor's catalogue (one entry per check id its findings carry) and the judgements that several databases
 * share: read-only, timeouts against the operation timeout, multi-primary.
 */
final class SqlDoctorCatalogue {
    static final DoctorCheck VERSION = new DoctorCheck("jdbc.version", "the database product and version (JDBC metadata), for the record",
            "", "a database distlock-jdbc does not support (older than PostgreSQL 12, MySQL 8.0, MariaDB 10.6 or H2 2.0): the client refuses "
                    + "to open", "PostgreSQL 12+, MySQL 8.0+, MariaDB 10.6+ or H2 2.x", "a supported version");
    static final DoctorCheck READ_ONLY = new DoctorCheck("jdbc.read-only", "PostgreSQL: pg_is_in_recovery(), default_transaction_read_only "
            + "and transaction_read_only; MySQL/MariaDB: read_only, super_read_only, innodb_read_only, transaction_read_only; H2: READONLY(); "
            + "and whether the driver opens read-only connections", "", "a standby, a server in read-only mode, or sessions of the client's "
                    + "user that start read-only: the lock table's UPDATE and INSERT are refused, so every acquire fails (the client opens "
                    + "new connections after such a refusal and works again once the server is writable)", "a writable primary",
            "point the target at the primary; ALTER DATABASE/ROLE ... RESET default_transaction_read_only (PostgreSQL), "
                    + "SET GLOBAL read_only = OFF (MariaDB/MySQL)");
    static final DoctorCheck LOCK_TABLE = new DoctorCheck("jdbc.lock-table", "the lock table (the namespace, default distlock_locks): its "
            + "columns, and whether lock_key alone is its primary key or unique (the database's catalog)", "",
            "lock_key is not unique, distlock's columns are missing, or the table is missing and the target says createTable=false: "
                    + "the client refuses to open on it (without the key, two clients locking a new name at once could both insert its "
                    + "row and both hold the lock)", "the table as the client creates it, or no table yet (the client creates it when "
                    + "it opens)", "ALTER TABLE <table> ADD PRIMARY KEY (lock_key), or a table created by the client "
                    + "(JdbcLockClient.ddl prints it)");
    static final DoctorCheck QUEUE_TABLE = new DoctorCheck("jdbc.queue-table", "the queue table of fair locks, read-write locks and "
            + "semaphores (<table>_queue): whether (lock_key, ticket) is its primary key or unique (JDBC getIndexInfo)",
            "", "no PRIMARY KEY or UNIQUE constraint on (lock_key, ticket): the client refuses to open on it (without the key, two "
                    + "clients making the first fair, read-write or semaphore acquisition of a name at once would both insert its counter "
                    + "row, take the same ticket and both hold the lock)", "the table as the client creates it, or no table yet (the "
                    + "client creates it when it opens; with createTable=false plain locks work and the other kinds fail until it exists)",
            "ALTER TABLE <table>_queue ADD PRIMARY KEY (lock_key, ticket)");
    static final DoctorCheck ISOLATION = new DoctorCheck("jdbc.isolation", "the isolation level new sessions start with, for the record", "", "",
            "any level: the client sets READ COMMITTED on each of its connections, which is all its statements need "
                    + "(at REPEATABLE READ or SERIALIZABLE, PostgreSQL and H2 would fail an acquire that meets another on the same row "
                    + "instead of letting it wait)", "");
    static final DoctorCheck TIMEOUTS = new DoctorCheck("jdbc.timeouts", "PostgreSQL: statement_timeout, lock_timeout, "
            + "idle_in_transaction_session_timeout; MariaDB/MySQL: max_statement_time, innodb_lock_wait_timeout, wait_timeout; H2: "
            + "QUERY_TIMEOUT, LOCK_TIMEOUT; each against the client's operation timeout (3 s by default)", "",
            "a statement or lock-wait timeout shorter than the operation timeout: the server cancels an acquire or a renewal the client "
                    + "would still wait for (a slow server; a row lock held by another client paused inside its transaction); an acquire "
                    + "then fails, and renewals cancelled for a whole lease lose the lock while its holder works",
            "no such timeout, or one at least the operation timeout (idle timeouts never matter: a lock is a row, not a session, and "
                    + "the client replaces an idle connection the server closed)",
            "raise the timeout for the client's user to at least the operation timeout (ALTER ROLE ... SET lock_timeout; "
                    + "innodb_lock_wait_timeout; LOCK_TIMEOUT=10000 in an H2 URL), or lower the client's operation timeout");
    static final DoctorCheck MULTI_PRIMARY = new DoctorCheck("jdbc.multi-primary", "MariaDB/MySQL: wsrep_on and wsrep_cluster_size "
            + "(Galera); PostgreSQL and H2 are not examined (a multi-primary PostgreSQL cannot be told from the server)", "",
            "Galera with several nodes: each node judges leases by its own clock, so a node whose clock runs ahead frees a lock early "
                    + "while its holder renews on another node (certification does stop two clients taking one free row at once)",
            "not Galera, or a cluster of one node", "point all clients at one node (its own address, or the proxy's single-writer mode)");
    static final DoctorCheck CONNECTIONS = new DoctorCheck("jdbc.connections", "the connections a client keeps (4, on PostgreSQL one of "
            + "them listening): against the maximum of the application's DataSource when one is offered (HikariCP, DBCP2, Tomcat JDBC, "
            + "c3p0, UCP or Vibur, read by its getter), and against the connections the server has free (PostgreSQL: max_connections less "
            + "the reserved ones, the role's and the database's CONNECTION LIMIT; MariaDB/MySQL: max_connections, the user's "
            + "max_user_connections; H2 has no limit)", "", "a pool whose maximum is not above the client's connections (the client keeps "
                    + "what it borrows until it closes: the application is left with none, and while the application holds them all a "
                    + "renewal waits for the pool past the operation timeout), or fewer free server connections than a client opens (one "
                    + "starting now cannot open them all): renewals that fail for a whole lease lose the lock",
            "a pool with room for the application beside the client's connections, and a server with room for another client",
            "raise the pool's maximum by what the application itself needs; raise the server's limit or close idle connections elsewhere");
    static final DoctorCheck LATENCY = RoundTripProbe.check("jdbc", "SELECT 1");
    /** The catalogue, in the order findings come. */
    static final List<DoctorCheck> CHECKS = List.of(VERSION, READ_ONLY, LOCK_TABLE, QUEUE_TABLE, ISOLATION, TIMEOUTS, MULTI_PRIMARY, CONNECTIONS,
            LATENCY);

    /** What a refused write means for the client, to end a read-only reason with. */
    static final String REFUSED = ": the lock table's UPDATE and INSERT are refused, so every acquire fails (the client opens new connections "
            + "after such a refusal, and works again once the server is writable)";

    private SqlDoctorCatalogue() {}

    /**
     * Returns the read-only finding: risky if any reason says writes are refused, or the driver's connection is read-only.
     *
     * @param reasons why this server refuses writes, each a sentence that says what follows for the client; empty if none
     * @param fix the fix for these reasons
     */
    static Finding readOnly(Connection connection, String observed, List<String> reasons, String fix) throws SQLException {
        boolean driverReadOnly = connection.isReadOnly();
        String seen = observed + ", connection read-only " + driverReadOnly;
        if (!reasons.isEmpty()) {
            return READ_ONLY.finding(Severity.RISKY, seen, String.join("; ", reasons), fix);
        }
        if (driverReadOnly) {
            return READ_ONLY.finding(Severity.RISKY, seen, "the driver opens read-only connections (a readOnly setting in the target): the "
                    + "database refuses the client's writes, all of them or those in transactions (pgjdbc's default readOnlyMode: fair locks, "
                    + "read-write locks and semaphores then fail, plain locks work)", "remove the read-only setting from the target");
        }
        return READ_ONLY.ok(seen, "writable: the lock table's UPDATE and INSERT can commit");
    }

    /**
     * A server timeout that can cancel the client's statements.
     *
     * @param setting as the server names it
     * @param value the timeout; zero when off
     * @param waitsForRowLock whether it bounds a wait for a row lock (else any statement)
     * @param fix the configuration line that raises it
     */
    record Limit(String setting, Duration value, boolean waitsForRowLock, String fix) {}

    /** Returns the timeouts finding: risky for each limit that is on and shorter than the operation timeout. */
    static Finding timeouts(String observed, List<Limit> limits, Duration operationTimeout) {
        List<String> why = new ArrayList<>();
        List<String> fixes = new ArrayList<>();
        for (Limit limit : limits) {
            if (!limit.value().isZero() && limit.value().compareTo(operationTimeout) < 0) {
                why.add(limit.setting() + " " + millis(limit.value()) + (limit.waitsForRowLock()
                        ? " cancels a statement that waits longer for a row lock (one held by another client paused inside its transaction "
                                + "on the same name): the acquire fails where the client would wait up to its operation timeout"
                        : " cancels a statement that runs longer (a loaded server): an acquire fails where the client would wait, and a "
                                + "renewal is tried again, but renewals cancelled for a whole lease lose the lock while its holder works"));
                fixes.add(limit.fix());
            }
        }
        String seen = observed + "; client operation timeout " + millis(operationTimeout);
        if (why.isEmpty()) {
            return TIMEOUTS.ok(seen, "no statement or lock-wait timeout shorter than the operation timeout (idle timeouts do not matter: "
                    + "a lock is a row, not a session, and the client replaces an idle connection the server closed)");
        }
        return TIMEOUTS.finding(Severity.RISKY, seen, String.join("; ", why), String.join("; ", fixes)
                + "; or a shorter operation timeout for the client");
    }

    /**
     * Returns the multi-primary finding of a Galera reading.
     *
     * @param wsrepOn wsrep_on, or null if the server has no such variable (not built with Galera)
     * @param clusterSize wsrep_cluster_size, or null if not reported
     */
    static Finding galera(@Nullable String wsrepOn, @Nullable String clusterSize) {
        String observed = "wsrep_on " + (wsrepOn == null ? "absent" : wsrepOn) + ", wsrep_cluster_size " + (clusterSize == null ? "absent" : clusterSize);
        if (wsrepOn == null || !isOn(wsrepOn)) {
            return MULTI_PRIMARY.ok(observed, "not a Galera node: one primary, whose clock alone judges every lease");
        }
        if (clusterSize != null && clusterSize.trim().equals("1")) {
            return MULTI_PRIMARY.ok(observed, "a Galera cluster of one node: one clock judges every lease (more nodes joining would change that)");
        }
        return MULTI_PRIMARY.finding(Severity.RISKY, observed, "Galera takes writes on every node; certification stops two clients taking one "
                + "free row at once, but each node judges leases by its own clock (expires_at against UTC_TIMESTAMP): with clients on "
                + "several nodes, a node whose clock runs ahead frees a lock early while its holder renews on another node",
                MULTI_PRIMARY.fix());
    }

    /** Returns whether a server's boolean setting reads as on (ON, 1, TRUE; MariaDB's read_only modes other than OFF). */
    static boolean isOn(@Nullable String value) {
        if (value == null) {
            return false;
        }
        String v = value.trim().toUpperCase(java.util.Locale.ROOT);
        return !(v.isEmpty() || v.equals("OFF") || v.equals("0") || v.equals("FALSE") || v.equals("NO"));
    }

    /** Returns a duration for people: {@code 100 ms}, {@code 3 s}. */
    static String millis(Duration duration) {
        long ms = duration.toMillis();
        return ms % 1000 == 0 ? ms / 1000 + " s" : ms + " ms";
    }
}
