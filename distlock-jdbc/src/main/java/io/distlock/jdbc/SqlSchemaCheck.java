package io.distlock.jdbc;

import io.distlock.Finding;
import io.distlock.Finding.Severity;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * The doctor's look at the client's two tables, through the database's catalog: whether they exist with distlock's
 * columns, and whether the keys the algorithm relies on are unique.
 */
final class SqlSchemaCheck {
    /*
     * What relies on which key:
     *
     * - Lock table: a name's row is INSERTed on its first acquire, and the loser of two such inserts must get a
     *   duplicate-key error. The client itself refuses to open on a table whose lock_key is not unique (checkKey in
     *   JdbcLockClient.build), so a missing key here means the client does not start: risky, not unsafe. The same
     *   catalog query as the client's (SqlDialect.keyIsUnique) decides, so the doctor and the client agree.
     * - Queue table: the counter row (ticket 0) of a name is INSERTed by its first join, and the loser must get a
     *   duplicate-key error; without a unique (lock_key, ticket), two first joins each insert a counter, both take
     *   ticket 1 and both are granted. The client refuses to open on such a table too (TableKeys.checkQueueKey), with
     *   the same test as this one (queueKeyIsUnique), so here too a missing key is risky: the client does not start.
     */
    /** The lock table's columns, as the client's open selects them (SqlDialect.checkColumns). */
    static final List<String> LOCK_COLUMNS = List.of("lock_key", "lock_name", "owner", "fence", "expires_at", "acquired_at", "last_owner",
            "end_reason");
    /** The queue table's columns, as the client's open selects them (SqlDialect.checkQueueColumns). */
    static final List<String> QUEUE_COLUMNS = List.of("lock_key", "ticket", "lock_name", "lock_role", "owner", "writer", "permits", "fence",
            "lease_ms", "expires_at");

    private static final Set<String> QUEUE_KEY = Set.of("lock_key", "ticket");

    private SqlSchemaCheck() {}

    /**
     * Returns whether the catalog shows a unique index (the primary key's included), not partial, on exactly (lock_key,
     * ticket) of {@code table}'s queue table: the test both the client's open ({@link TableKeys}) and the doctor apply.
     */
    static boolean queueKeyIsUnique(Connection connection, Database database, LockTable table) throws SQLException {
        return uniqueOn(connection, Place.of(connection, database, table.schema(), table.unqualified() + "_queue"), QUEUE_KEY);
    }

    /** Returns the lock table's columns in lower case, as the catalog shows them; empty if there is no such table. */
    static Set<String> lockTableColumns(Connection connection, Database database, LockTable table) throws SQLException {
        return columns(connection, Place.of(connection, database, table.schema(), table.unqualified()));
    }

    /** Returns the queue table's columns in lower case, as the catalog shows them; empty if there is no such table. */
    static Set<String> queueTableColumns(Connection connection, Database database, LockTable table) throws SQLException {
        return columns(connection, Place.of(connection, database, table.schema(), table.unqualified() + "_queue"));
    }

    /** Returns the lock table's finding; {@code createTable} is the target's (default true). */
    static Finding lockTable(Connection connection, Database database, SqlDialect dialect, LockTable table, boolean createTable) throws SQLException {
        Set<String> columns = lockTableColumns(connection, database, table);
        String ddl = "JdbcLockClient.ddl(Database." + database + ", \"" + table + "\") prints it";
        if (columns.isEmpty()) {
            return createTable ? SqlDoctorCatalogue.LOCK_TABLE.ok("table " + table + " does not exist", "the client creates it when it opens "
                    + "(CREATE TABLE IF NOT EXISTS, lock_key its primary key); its user needs the right to create tables there")
                    : SqlDoctorCatalogue.LOCK_TABLE.finding(Severity.RISKY, "table " + table + " does not exist; the target says createTable=false",
                            "the client refuses to open: it may not create the table", "create the table (" + ddl + "), or drop createTable=false");
        }
        Set<String> missing = new TreeSet<>(LOCK_COLUMNS);
        missing.removeAll(columns);
        if (!missing.isEmpty()) {
            return SqlDoctorCatalogue.LOCK_TABLE.finding(Severity.RISKY, "table " + table + " lacks columns " + String.join(", ", missing),
                    "the client refuses to open on a table without distlock's columns (one made for something else, or by hand)",
                    "a namespace of its own for the locks, whose table the client creates (" + ddl + ")");
        }
        if (!dialect.keyIsUnique(connection)) {
            return SqlDoctorCatalogue.LOCK_TABLE.finding(Severity.RISKY, "table " + table + " has no PRIMARY KEY or UNIQUE constraint on lock_key alone",
                    "the client refuses to open on it: a name's row is inserted on its first acquire, and without the key two clients locking "
                            + "a new name at once would both insert it and both hold the lock",
                    "ALTER TABLE " + table + " ADD PRIMARY KEY (lock_key) (after deleting rows with a duplicate lock_key)");
        }
        return SqlDoctorCatalogue.LOCK_TABLE.ok("table " + table + " with distlock's columns; lock_key is unique", "a name's row is inserted "
                + "once: of two clients locking a new name at once, one inserts it and the other finds it held");
    }

    /** Returns the queue table's finding; {@code createTable} is the target's (default true). */
    static Finding queueTable(Connection connection, Database database, SqlDialect dialect, LockTable table, boolean createTable)
            throws SQLException {
        String queue = dialect.queueTable();
        Set<String> columns = queueTableColumns(connection, database, table);
        Set<String> missing = new TreeSet<>(QUEUE_COLUMNS);
        missing.removeAll(columns);
        if (columns.isEmpty() || !missing.isEmpty()) {
            String observed = columns.isEmpty() ? "table " + queue + " does not exist" : "table " + queue + " lacks columns " + String.join(", ", missing);
            if (columns.isEmpty() && createTable) {
                return SqlDoctorCatalogue.QUEUE_TABLE.ok(observed, "the client creates it when it opens, (lock_key, ticket) its primary key");
            }
            return SqlDoctorCatalogue.QUEUE_TABLE.finding(Severity.OK, observed, "plain locks do not use it; fair locks, read-write locks and "
                    + "semaphores fail, saying what to create, until it exists with distlock's columns", "create it (JdbcLockClient.ddl prints it) "
                    + "if the application uses fair locks, read-write locks or semaphores");
        }
        if (!queueKeyIsUnique(connection, database, table)) {
            return SqlDoctorCatalogue.QUEUE_TABLE.finding(Severity.RISKY, "table " + queue + " has no PRIMARY KEY or UNIQUE constraint on "
                    + "(lock_key, ticket)", "the client refuses to open on it: a name's counter row (ticket 0) is inserted by its first fair, "
                    + "read-write or semaphore acquire, and without the key two clients doing that at once would both insert one, take the "
                    + "same ticket and both hold the lock", "ALTER TABLE " + queue + " ADD PRIMARY KEY (lock_key, ticket) (after deleting its "
                    + "rows: no client may run meanwhile)");
        }
        return SqlDoctorCatalogue.QUEUE_TABLE.ok("table " + queue + " with distlock's columns; (lock_key, ticket) is unique", "a name's counter "
                + "row and each ticket exist once: of two clients joining a queue at once, one waits for the other's counter row");
    }

    /** Returns the table's column names in lower case; empty if the catalog shows no such table. */
    private static Set<String> columns(Connection connection, Place place) throws SQLException {
        DatabaseMetaData metaData = connection.getMetaData();
        String escape = metaData.getSearchStringEscape();
        Set<String> columns = new LinkedHashSet<>();
        try (ResultSet rows = metaData.getColumns(place.catalog(), place.schema() == null ? null : pattern(place.schema(), escape),
                pattern(place.table(), escape), "%")) {
            while (rows.next()) {
                if (rows.getString("TABLE_NAME").equals(place.table())) {
                    columns.add(rows.getString("COLUMN_NAME").toLowerCase(Locale.ROOT));
                }
            }
        }
        return columns;
    }

    /** Returns whether a unique index (the primary key's included), not partial, has exactly these columns (lower case). */
    private static boolean uniqueOn(Connection connection, Place place, Set<String> wanted) throws SQLException {
        Map<String, Set<String>> indexes = new HashMap<>();
        try (ResultSet rows = connection.getMetaData().getIndexInfo(place.catalog(), place.schema(), place.table(), true, true)) {
            while (rows.next()) {
                String column = rows.getString("COLUMN_NAME");
                if (column != null && !rows.getBoolean("NON_UNIQUE") && rows.getString("FILTER_CONDITION") == null) {
                    indexes.computeIfAbsent(rows.getString("INDEX_NAME"), name -> new TreeSet<>()).add(column.toLowerCase(Locale.ROOT));
                }
            }
        }
        return indexes.containsValue(new TreeSet<>(wanted));
    }

    /** Escapes a name for a catalog pattern ('_' and '%' are wildcards there). */
    private static String pattern(String name, String escape) {
        return name.replace(escape, escape + escape).replace("_", escape + "_").replace("%", escape + "%");
    }

    /**
     * Where a table is, as the catalog names it: MySQL and MariaDB call a database a catalog, the others have schemas
     * (unqualified: the connection's current one, where the client's CREATE TABLE puts it); names folded to the case the
     * database stores unquoted names in.
     */
    private record Place(@Nullable String catalog, @Nullable String schema, String table) {
        static Place of(Connection connection, Database database, @Nullable String schemaAsWritten, String table) throws SQLException {
            DatabaseMetaData metaData = connection.getMetaData();
            String schema = schemaAsWritten == null ? null : fold(metaData, schemaAsWritten);
            if (database == Database.MYSQL) {
                return new Place(schema == null ? connection.getCatalog() : schema, null, fold(metaData, table));
            }
            return new Place(null, schema == null ? connection.getSchema() : schema, fold(metaData, table));
        }

        private static String fold(DatabaseMetaData metaData, String name) throws SQLException {
            if (metaData.storesUpperCaseIdentifiers()) {
                return name.toUpperCase(Locale.ROOT);
            }
            return metaData.storesLowerCaseIdentifiers() ? name.toLowerCase(Locale.ROOT) : name;
        }
    }
}
