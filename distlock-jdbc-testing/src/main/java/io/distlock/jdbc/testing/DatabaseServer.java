package io.distlock.jdbc.testing;

import io.distlock.servers.BackendControl;

/**
 * A SQL database server started for tests, the checker, the demo or the benchmarks ({@link PostgresServer},
 * {@link MariaDbServer}, {@link H2Server}): where clients connect, how its faults are injected, and how an
 * operator would end every other client session on it.
 */
public interface DatabaseServer extends BackendControl, AutoCloseable {

    /** Returns the port clients connect to. */
    int port();

    /** Returns a JDBC URL with credentials for the server's test database. */
    String jdbcUrl();

    /** Returns a query listing the ids of every session but the caller's, as the server's operator would see them. */
    String otherSessionsQuery();

    /** Returns a statement ending the session whose id replaces {@code ?} (literally, not as a bind parameter). */
    String endSessionStatement();

    /** Stops the server and deletes its files. */
    @Override
    void close();
}
