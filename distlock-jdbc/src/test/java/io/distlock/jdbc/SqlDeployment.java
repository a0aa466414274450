package io.distlock.jdbc;

import io.distlock.testkit.TestDeployment;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.jspecify.annotations.Nullable;

/** A database for the SQL contract tests: where it is (a JDBC URL), how to fault it, and its SQL for raw checks. */
interface SqlDeployment extends TestDeployment {

    /** Returns which database this is. */
    Database kind();

    /** Returns the schema (MariaDB: the database) the test's tables are in by default. */
    String schema();

    /** Returns the port clients connect to (for a proxy in front of the server). */
    int port();

    /** Returns the database's expression for its current time, as the client uses it. */
    String now();

    /** Returns the statement that ends another session: one parameter, that session's id. */
    String killSession();

    /** Returns the query for the current session's id. */
    String sessionId();

    /** Returns the query for the ids of every other session on the test's database. */
    String otherSessions();

    /** Returns the statements that create a login {@code user} with the rights a lock client needs (idempotent). */
    List<String> createUser(String user);

    /** Returns the JDBC URL of {@link #target()} for {@code user} (no password), connecting to {@code port}. */
    String urlFor(String user, int port);

    /** Returns the query counting the open sessions of a user: one parameter, the user's name as the server stores it. */
    String sessionsOfUser();

    /** Returns the query counting the sessions of a user that wait for a row lock: one parameter, as above. */
    String blockedSessionsOfUser();

    /** Returns the name of {@code user} as the server stores it (H2 upper-cases unquoted names). */
    default String storedName(String user) {
        return user;
    }

    /**
     * Returns the statements that make the isolation level of every new session {@code level} ("REPEATABLE
     * READ", "SERIALIZABLE"; empty to restore the server's own default), or null if the database has no
     * server-wide default (H2: the level is per session only).
     */
    @Nullable List<String> defaultIsolation(String level);

    /**
     * Returns the statements that turn the database read-only for the sessions of {@code user} (true) or
     * writable again (false), as an operator or a failover does; null if the database has no such switch.
     */
    @Nullable List<String> readOnly(boolean on, String user);

    /** Opens a connection of the test's own (not the client's). */
    default Connection connect() throws SQLException {
        return DriverManager.getConnection(target());
    }

    /** Returns a JDBC URL for a login of its own named {@code user}, creating it first. */
    default String urlAs(String user) throws SQLException {
        execute(createUser(user));
        return urlFor(user, port());
    }

    /** Runs statements on a connection of the test's own. */
    default void execute(List<String> statements) throws SQLException {
        try (Connection connection = connect(); Statement statement = connection.createStatement()) {
            for (String sql : statements) {
                statement.execute(sql);
            }
        }
    }

    /** Returns the number the query counts for the user, asked on a connection of the test's own. */
    default long count(String query, String user) throws SQLException {
        try (Connection connection = connect(); PreparedStatement statement = connection.prepareStatement(query)) {
            statement.setString(1, storedName(user));
            try (ResultSet row = statement.executeQuery()) {
                row.next();
                return row.getLong(1);
            }
        }
    }
}
