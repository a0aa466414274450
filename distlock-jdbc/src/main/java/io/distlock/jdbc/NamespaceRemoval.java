package io.distlock.jdbc;

import io.distlock.BackendUnavailableException;
import io.distlock.LockException;
import io.distlock.OpenOptions;
import io.distlock.spi.TargetParameters;
import io.distlock.spi.TargetUri;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/** Drops the tables of one namespace: {@link JdbcBackendProvider#removeNamespace}. */
final class NamespaceRemoval {
    /*
     * On SQL a namespace is a lock table, and its clients store everything in two tables named from it: the lock table
     * itself, and <table>_queue in the same schema (fair locks, read-write locks, semaphores; SqlDialect.queueTable).
     * Nothing else is derived from the name: fencing tokens are a column of the rows (no sequences), the unique keys are
     * the tables' primary keys (dropped with them), and PostgreSQL's notification channel is not stored anywhere.
     *
     * So removal drops those two tables (DROP TABLE IF EXISTS), each only if it is distlock's: the catalog must show it
     * with every column the client's open selects (SqlSchemaCheck, which the doctor reads the same way; the catalog
     * rather than a probing SELECT, so that a missing table is no failed statement a driver logs). A table the
     * application made for itself lacks them. Both are looked up before anything is dropped:
     *
     * - a lock table that exists without those columns means the namespace names someone else's table: refused, nothing
     *   dropped (a client of that namespace could never open, so it stored nothing but maybe the queue table);
     * - a <table>_queue without the queue's columns is left alone: it may be another namespace's lock table (the lock
     *   table of namespace "a_queue" is called that), and clients of this namespace never wrote to it.
     *
     * An unqualified name is looked up in the connection's current schema (MySQL: database), which is where DROP TABLE
     * finds it first; a table the client would find further along PostgreSQL's search_path is not dropped (counted 0).
     *
     * The name passes LockTable.named, the rule open applies: one or two plain identifiers, never quoted or escaped, so
     * it can only ever name [schema.]table, the table open would use. The default namespace (distlock_locks, in any
     * schema) is the application's, and is refused whether it is named or not.
     */

    private NamespaceRemoval() {}

    /**
     * Drops the lock table {@code options.namespace()} names and its queue table, where they exist and are distlock's.
     *
     * @return how many tables were dropped: 0, 1 or 2
     * @throws IllegalArgumentException if no namespace is named, it is the default one, it is not [schema.]table of plain
     *     identifiers, or it names a table that is not a distlock lock table; or if the target is malformed
     * @throws BackendUnavailableException if the database cannot be reached in time
     * @throws LockException if it refuses the connection or a DROP (privileges)
     */
    static long remove(String target, OpenOptions options) {
        TargetParameters parameters = TargetParameters.take(target, Set.of(JdbcBackendProvider.CREATE_TABLE));
        parameters.bool(JdbcBackendProvider.CREATE_TABLE); // validated as open validates it; removal creates nothing
        String namespace = options.namespace().orElseThrow(() -> new IllegalArgumentException("removing a namespace needs one: the default "
                + "table " + LockTable.DEFAULT_NAME + " is the application's, never removed"));
        LockTable table = LockTable.named(namespace);
        if (table.unqualified().toLowerCase(Locale.ROOT).equals(LockTable.DEFAULT_NAME)) {
            throw new IllegalArgumentException("namespace '" + namespace + "' is the default table " + LockTable.DEFAULT_NAME
                    + ", the application's: it is never removed");
        }
        Duration wait = TargetConnection.waitFor(options);
        String where = TargetUri.mask(parameters.target());
        Connection connection = TargetConnection.open(parameters.target(), options, wait, "removing namespace " + namespace);
        try {
            return drop(connection, table, (int) Math.max(1, wait.toSeconds()), where);
        } catch (SQLException e) {
            throw TargetConnection.failure(e, "removing namespace " + namespace + " from " + where + " failed");
        } finally {
            SqlConnections.closeQuietly(connection);
        }
    }

    private static long drop(Connection connection, LockTable table, int timeoutSeconds, String where) throws SQLException {
        Database database = Database.detect(connection.getMetaData());
        SqlDialect dialect = database.dialect(table);
        List<String> ours = new ArrayList<>();
        Set<String> lockColumns = SqlSchemaCheck.lockTableColumns(connection, database, table);
        if (lockColumns.containsAll(SqlSchemaCheck.LOCK_COLUMNS)) {
            ours.add(table.name());
        } else if (!lockColumns.isEmpty()) {
            throw new IllegalArgumentException("namespace '" + table + "' names table " + table + " on " + where + ", which is not a "
                    + "distlock lock table (it lacks distlock's columns): nothing was removed");
        }
        if (SqlSchemaCheck.queueTableColumns(connection, database, table).containsAll(SqlSchemaCheck.QUEUE_COLUMNS)) {
            ours.add(dialect.queueTable());
        }
        try (Statement statement = connection.createStatement()) {
            statement.setQueryTimeout(timeoutSeconds); // a DROP waits for the table's lock, which a live client's statement holds
            for (String name : ours) {
                statement.execute("DROP TABLE IF EXISTS " + name);
            }
        }
        return ours.size();
    }
}
