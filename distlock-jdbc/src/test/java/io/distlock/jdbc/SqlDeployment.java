package io.distlock.jdbc;

import io.distlock.testkit.TestDeployment;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;

/** A database for the SQL contract tests: where it is (a JDBC URL), how to fault it, and its SQL for raw checks. */
interface SqlDeployment extends TestDeployment {

    /** Returns the database's expression for its current time, as the client uses it. */
    String now();

    /** Returns the statement that ends another session: one parameter, that session's id. */
    String killSession();

    /** Returns the query for the current session's id. */
    String sessionId();

    /** Returns the query for the ids of every other session on the test's database. */
    String otherSessions();

    /** Opens a connection of the test's own (not the client's). */
    default Connection connect() throws SQLException {
        return DriverManager.getConnection(target());
    }
}
