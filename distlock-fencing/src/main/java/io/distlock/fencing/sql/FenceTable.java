package io.distlock.fencing.sql;

import io.distlock.fencing.FencingContext;
import io.distlock.fencing.FencingTokens;
import io.distlock.fencing.StaleTokenException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import org.jspecify.annotations.Nullable;

/**
 * A fencing guard for writes that span several rows or tables: a table of resources with the highest token each has
 * seen, checked and raised in the caller's transaction, before or after its writes. If a higher token has been
 * recorded for the resource, the check throws {@link StaleTokenException} and the caller rolls back; if not, the
 * caller's token is recorded and the resource's row stays locked until the transaction ends, so a writer with a lower
 * token that comes meanwhile waits, and is refused once this transaction commits.
 *
 * <pre>{@code
 * FenceTable fences = FenceTable.defaults();      // fences.create(connection) once, or run fences.ddl()
 * connection.setAutoCommit(false);
 * fences.check(connection, "order-7", lease.fencingToken());
 * ... the transaction's writes ...
 * connection.commit();
 * }</pre>
 *
 * <p>The check must run inside the transaction of the writes it guards (auto-commit off); in auto-commit mode it
 * would end before the writes, and it refuses to run there. A rollback takes the recorded token back with the writes.
 */
public final class FenceTable {
    /** The table's default name. */
    public static final String DEFAULT_NAME = "distlock_fences";
    /** The longest resource name the table takes. */
    public static final int MAX_RESOURCE_LENGTH = 255;

    private static final int ATTEMPTS = 3;

    private final String table;

    private FenceTable(String table) {
        this.table = table;
    }

    /** Returns the guard on the table {@value #DEFAULT_NAME}. */
    public static FenceTable defaults() {
        return named(DEFAULT_NAME);
    }

    /**
     * Returns the guard on the table {@code table}.
     *
     * @throws IllegalArgumentException if {@code table} is not a plain SQL identifier
     */
    public static FenceTable named(String table) {
        return new FenceTable(SqlNames.require(table, "fence table"));
    }

    /** Returns the table's {@code CREATE TABLE IF NOT EXISTS} statement (the same on PostgreSQL, MySQL/MariaDB and H2). */
    public String ddl() {
        return "CREATE TABLE IF NOT EXISTS " + table + " (resource VARCHAR(" + MAX_RESOURCE_LENGTH + ") NOT NULL PRIMARY KEY, "
                + "highest_token BIGINT NOT NULL)";
    }

    /** Creates the table if it does not exist. */
    public void create(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute(ddl());
        }
    }

    /**
     * As {@link #check(Connection, String, long)}, with the token of the lock this thread works under: inside a Spring
     * {@code @WithLock} method, its lease's token (see {@link FencingContext}).
     *
     * @throws IllegalStateException if this thread works under no lock, or {@code connection} is in auto-commit mode
     */
    public void check(Connection connection, String resource) throws SQLException {
        check(connection, resource, FencingContext.currentToken());
    }

    /**
     * Records {@code token} as the highest seen by {@code resource}, in the caller's transaction, or refuses it.
     *
     * @throws StaleTokenException if a higher token has been recorded for {@code resource}: nothing was recorded,
     *     and the caller should roll back its transaction
     * @throws IllegalStateException if {@code connection} is in auto-commit mode
     * @throws IllegalArgumentException if {@code token} is not positive, or {@code resource} is blank or longer than
     *     {@value #MAX_RESOURCE_LENGTH} characters
     * @throws SQLException as the database reports it (the table missing, for one)
     */
    public void check(Connection connection, String resource, long token) throws SQLException {
        FencingTokens.requireValid(token);
        if (resource == null || resource.isBlank() || resource.length() > MAX_RESOURCE_LENGTH) {
            throw new IllegalArgumentException("a resource is 1 to " + MAX_RESOURCE_LENGTH + " characters, got "
                    + (resource == null ? "null" : resource.length() + " characters"));
        }
        if (connection.getAutoCommit()) {
            throw new IllegalStateException("FenceTable.check must run in the transaction of the writes it guards: "
                    + "the connection is in auto-commit mode (setAutoCommit(false), or call it inside @Transactional)");
        }
        // raise the row; else make it; else it exists with a higher token (or came meanwhile): read it, locked. The
        // insert comes before the locking read: on MySQL a locking read of a missing row takes a gap lock, and two
        // first checks of one resource would then deadlock on their inserts
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            if (raise(connection, resource, token) || insert(connection, resource, token)) {
                return;
            }
            Long highest = highest(connection, resource);
            if (highest != null && highest > token) {
                throw new StaleTokenException(table + " resource '" + resource + "'", token, highest);
            }
            // recorded by a transaction that committed after our update looked, with a token not above ours: again
        }
        throw new SQLException("could not record fencing token " + token + " for '" + resource + "' in " + table + " after " + ATTEMPTS
                + " attempts: its row kept changing");
    }

    /** Raises the resource's token to {@code token} if it is not higher; returns whether the row was there to raise. */
    private boolean raise(Connection connection, String resource, long token) throws SQLException {
        try (PreparedStatement update = connection.prepareStatement("UPDATE " + table + " SET highest_token = ? WHERE resource = ? "
                + "AND highest_token <= ?")) {
            update.setLong(1, token);
            update.setString(2, resource);
            update.setLong(3, token);
            return update.executeUpdate() == 1;
        }
    }

    /** Returns the resource's recorded token, read with a locking read (the latest committed, not a snapshot), or null. */
    private @Nullable Long highest(Connection connection, String resource) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement("SELECT highest_token FROM " + table + " WHERE resource = ? FOR UPDATE")) {
            select.setString(1, resource);
            try (ResultSet row = select.executeQuery()) {
                return row.next() ? row.getLong(1) : null;
            }
        }
    }

    /**
     * Inserts the resource's first row; returns false if another transaction's row for it came first. Under a savepoint:
     * on PostgreSQL a failed statement would otherwise abort the caller's whole transaction.
     */
    private boolean insert(Connection connection, String resource, long token) throws SQLException {
        Savepoint savepoint = connection.setSavepoint();
        try (PreparedStatement insert = connection.prepareStatement("INSERT INTO " + table + " (resource, highest_token) VALUES (?, ?)")) {
            insert.setString(1, resource);
            insert.setLong(2, token);
            insert.executeUpdate();
            connection.releaseSavepoint(savepoint);
            return true;
        } catch (SQLException e) {
            if (!String.valueOf(e.getSQLState()).startsWith("23")) {
                throw e;
            }
            connection.rollback(savepoint);
            return false;
        }
    }

    /** Returns the table's name. */
    String tableName() {
        return table;
    }

    @Override
    public String toString() {
        return "FenceTable[" + table + "]";
    }
}
