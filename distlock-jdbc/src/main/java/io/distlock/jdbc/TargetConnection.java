package io.distlock.jdbc;

import io.distlock.BackendUnavailableException;
import io.distlock.LockException;
import io.distlock.OpenOptions;
import io.distlock.spi.TargetUri;
import java.net.PasswordAuthentication;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.sql.DataSource;

/**
 * One connection of a tool's own to a target (the doctor's, namespace removal's), made as {@link JdbcBackendProvider#open}
 * makes a client's: from the DataSource offered as a resource, else from the URL with the credentials offered.
 */
final class TargetConnection {
    /*
     * Connecting waits at most the client's setup wait (the operation timeout, at least 10 s: a JVM's first connection
     * also loads the driver); each statement then at most that long (the network timeout, where the driver has one). An
     * unreachable server is BackendUnavailableException, one that refuses the connection (credentials, an unknown
     * database) LockException, both naming the masked target. The connection is in autocommit mode, as the client's are.
     */
    private static final Duration MIN_CONNECT_WAIT = Duration.ofSeconds(10);

    private TargetConnection() {}

    /** Returns how long a tool waits for its connection and each answer: the operation timeout of {@code options}, at least 10 s. */
    static Duration waitFor(OpenOptions options) {
        Duration timeout = options.operationTimeout().orElse(JdbcLockClient.DEFAULT_OPERATION_TIMEOUT);
        return timeout.compareTo(MIN_CONNECT_WAIT) > 0 ? timeout : MIN_CONNECT_WAIT;
    }

    /**
     * Opens the connection, in autocommit mode, waiting at most {@code wait}; a connection that comes later is closed.
     *
     * @param url the target without the backend's own parameters
     * @param who the tool, for messages ("the SQL doctor")
     * @throws IllegalArgumentException if the resources offered contradict each other or the URL is not a JDBC URL
     * @throws BackendUnavailableException if the database does not answer in time
     * @throws LockException if it refuses the connection
     */
    static Connection open(String url, OpenOptions options, Duration wait, String who) {
        String where = TargetUri.mask(url);
        ConnectionSource source = source(url, options);
        CompletableFuture<Connection> opened = new CompletableFuture<>();
        Thread connector = new Thread(() -> {
            try {
                opened.complete(source.open());
            } catch (SQLException | RuntimeException e) {
                opened.completeExceptionally(e);
            }
        }, "distlock-jdbc-connect");
        connector.setDaemon(true);
        connector.start();
        Connection connection;
        try {
            connection = opened.get(wait.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            opened.thenAccept(SqlConnections::closeQuietly);
            throw new BackendUnavailableException(who + " got no connection to " + where + " within " + wait, e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof SQLException sql) {
                throw failure(sql, who + " could not connect to " + where);
            }
            if (e.getCause() instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw new LockException(who + " could not connect to " + where + ": " + e.getCause(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            opened.thenAccept(SqlConnections::closeQuietly);
            throw new LockException("interrupted while connecting to " + where, e);
        }
        try {
            connection.setAutoCommit(true); // as the client's connections
            try {
                connection.setNetworkTimeout(Runnable::run, (int) wait.toMillis());
            } catch (SQLException | UnsupportedOperationException none) {
                // H2 has none; its reads are local or on the TCP server's socket
            }
            return connection;
        } catch (SQLException e) {
            SqlConnections.closeQuietly(connection);
            throw failure(e, who + " could not use its connection to " + where);
        }
    }

    /** Returns the exception for a statement that failed: unavailable if the server could not be reached, else refused. */
    static RuntimeException failure(SQLException e, String what) {
        String message = what + ": " + e.getMessage() + " (SQLState " + e.getSQLState() + ")";
        return SqlConnections.isUnreachable(e) ? new BackendUnavailableException(message, e) : new LockException(message, e);
    }

    /** Where connections come from, as {@link JdbcBackendProvider#open} decides it. */
    private static ConnectionSource source(String url, OpenOptions options) {
        Optional<DataSource> dataSource = options.resourceOf(DataSource.class);
        Optional<PasswordAuthentication> credentials = options.resourceOf(PasswordAuthentication.class);
        if (dataSource.isPresent()) {
            if (credentials.isPresent()) {
                throw new IllegalArgumentException("credentials apply to a database the client connects to itself; the DataSource offered "
                        + "has its own");
            }
            return ConnectionSource.of(dataSource.get(), dataSource.get().getClass().getSimpleName());
        }
        if (!url.startsWith("jdbc:")) {
            throw new IllegalArgumentException("target must be a JDBC URL, was '" + TargetUri.mask(url) + "'");
        }
        return ConnectionSource.of(url, credentials.map(PasswordAuthentication::getUserName).orElse(null),
                credentials.map(user -> user.getPassword().length == 0 ? null : new String(user.getPassword())).orElse(null));
    }
}
