package io.distlock.jdbc;

import io.distlock.LockException;
import java.sql.Connection;
import java.sql.SQLException;

/** The unique keys the algorithm relies on, checked when a client opens: it refuses tables without them. */
final class TableKeys {
    /*
     * Both tables get a name's first row by INSERT, never by upsert, and count on the loser of two such inserts getting a
     * duplicate-key error:
     *
     * - the lock table's row of a name, inserted held by its first acquire: without a unique lock_key, two clients
     *   locking a new name at once both insert one and both hold the lock;
     * - the queue table's counter row (ticket 0) of a name, inserted by its first fair, read-write or semaphore join:
     *   without a unique (lock_key, ticket), two first joins both insert one, take the same ticket and both hold.
     *
     * A table the client creates has both as primary keys; one made by hand, or for an older version, may not. The
     * queue table is created at open with the lock table (not lazily), so it is checked at open too: a client that
     * starts is one whose every kind is safe, and a hand-made table is reported where its DBA looks, at deployment,
     * not at the first fair lock months later. Its test is the doctor's (SqlSchemaCheck.queueKeyIsUnique), so the
     * doctor reports RISKY exactly where the client refuses. A queue table that is missing or lacks columns is not
     * refused: plain locks work without it, and the other kinds say what to create (JdbcLockBackend.queueMissing).
     */

    private TableKeys() {}

    /**
     * Refuses a lock table whose lock_key is not unique.
     *
     * @throws LockException naming the table, the missing key and the DDL that adds it, or if the catalog cannot be read
     * @throws SQLException if the connection failed
     */
    static void checkLockKey(Connection connection, Database database, SqlDialect dialect, LockTable table) throws SQLException {
        boolean unique;
        try {
            unique = dialect.keyIsUnique(connection);
        } catch (SQLException e) {
            throw unreadable(e, connection, "lock_key is the key of table " + table);
        }
        if (!unique) {
            throw new LockException("table " + table + " has no PRIMARY KEY or UNIQUE constraint on lock_key alone, so two clients could "
                    + "both hold one lock (each inserting a row for a new name); add one (after deleting rows with a duplicate lock_key):\n"
                    + "ALTER TABLE " + table + " ADD PRIMARY KEY (lock_key);\nor create the table as distlock does:\n"
                    + JdbcLockClient.ddl(database, table.name()));
        }
    }

    /**
     * Refuses a queue table (one with distlock's columns) whose (lock_key, ticket) is not unique.
     *
     * @throws LockException naming the table, the missing key and the DDL that adds it, or if the catalog cannot be read
     * @throws SQLException if the connection failed
     */
    static void checkQueueKey(Connection connection, Database database, SqlDialect dialect, LockTable table) throws SQLException {
        boolean unique;
        try {
            unique = SqlSchemaCheck.queueKeyIsUnique(connection, database, table);
        } catch (SQLException e) {
            throw unreadable(e, connection, "(lock_key, ticket) is the key of queue table " + dialect.queueTable());
        }
        if (!unique) {
            String queue = dialect.queueTable();
            throw new LockException("queue table " + queue + " has no PRIMARY KEY or UNIQUE constraint on (lock_key, ticket), so two clients "
                    + "could both hold one fair lock, read-write lock or semaphore (each inserting the counter row of a new name and taking "
                    + "the same ticket); add it, with no client running (after deleting the table's rows, which only live clients need):\n"
                    + "ALTER TABLE " + queue + " ADD PRIMARY KEY (lock_key, ticket);\nor drop the table and let the client create it as "
                    + "distlock does:\n" + dialect.ddl().get(1) + ";");
        }
    }

    /** Returns the refusal for a catalog the user may not read; a failed connection is thrown as it is. */
    private static LockException unreadable(SQLException e, Connection connection, String what) throws SQLException {
        if (SqlConnections.isConnectionError(e, connection)) {
            throw e;
        }
        return new LockException("cannot read from the catalog whether " + what + " (" + e.getMessage() + "); the user needs to see the "
                + "table's indexes", e);
    }
}
