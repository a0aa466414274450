package io.distlock.jdbc;

import io.distlock.BackendUnavailableException;
import io.distlock.LockClient;
import io.distlock.LockException;
import io.distlock.LockInspector;
import io.distlock.LockOptions;
import io.distlock.spi.ClientBuilder;
import io.distlock.spi.ForwardingLockClient;
import io.distlock.spi.LockEngine;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link LockClient} on a SQL database (PostgreSQL 12+, MySQL 8+, MariaDB 10.6+, H2 2.x): one row per
 * lock in a table, leases on the database's clock, fencing tokens from a per-row counter.
 *
 * <pre>{@code
 * try (LockClient locks = JdbcLockClient.create(dataSource)) {
 *     try (Lease lease = locks.getLock("orders:42").acquire(Duration.ofSeconds(5))) {
 *         // critical section; pass lease.fencingToken() to the resource you protect
 *     }
 * }
 * }</pre>
 *
 * <p>The client runs every statement on connections of its own, in autocommit mode: a lock is never part
 * of the caller's transaction, and a rollback of that transaction does not release it. Expiry is decided
 * by the database's clock alone ({@code clock_timestamp()}, {@code UTC_TIMESTAMP(6)}, {@code
 * CURRENT_TIMESTAMP}); application clocks never enter. Waiters are woken by LISTEN/NOTIFY on PostgreSQL
 * (with pgjdbc, on one of the client's connections) and poll the table elsewhere (see {@link
 * Builder#releasePoll}). The client opens at most {@link Builder#connections} connections. The table is created if
 * missing, unless {@link Builder#createTable(boolean)} is false; {@link #ddl(Database)} prints it for a DBA.
 * The user needs SELECT, INSERT and UPDATE on the table (and CREATE to create it). Rows are never
 * deleted: one per lock name ever used, about 200 bytes each. See docs/guarantees.md for what holds
 * under restarts, killed connections and failover.
 */
public final class JdbcLockClient extends ForwardingLockClient {
    /** The default table, {@code distlock_locks}. */
    public static final String DEFAULT_TABLE = LockTable.DEFAULT_NAME;
    /** The default operation timeout, 3 seconds. */
    public static final Duration DEFAULT_OPERATION_TIMEOUT = Duration.ofSeconds(3);
    /** The default longest interval between release polls on databases without notifications, 100 ms. */
    public static final Duration DEFAULT_RELEASE_POLL = Duration.ofMillis(100);
    /** How many connections a client opens at most by default, 4. */
    static final int DEFAULT_CONNECTIONS = 4;
    /** The least time {@code build()} gives the first connection and the table check. */
    private static final Duration MIN_SETUP_TIMEOUT = Duration.ofSeconds(10);
    private static final Logger log = LoggerFactory.getLogger(JdbcLockClient.class);

    private final Database database;
    private final String table;
    private final String describe;
    private final LockInspector inspector;

    private JdbcLockClient(LockClient engine, Database database, String table, String describe, LockInspector inspector) {
        super(engine);
        this.database = database;
        this.table = table;
        this.describe = describe;
        this.inspector = inspector;
    }

    /**
     * Returns an inspector of every lock in this client's tables, of every client: the plain locks held (owner id,
     * token, lease left on the database clock) and the fair locks, read-write locks and semaphores with their holders,
     * waiters and permits.
     */
    @Override
    public Optional<LockInspector> inspector() {
        return Optional.of(inspector);
    }

    /**
     * Returns a client with the default settings on connections from {@code dataSource}: a pool such as
     * HikariCP lends the client up to four of its connections (on PostgreSQL one of them listens) and gets
     * them back when the client closes.
     *
     * @throws BackendUnavailableException if the database does not answer within the operation timeout (at least 10 s for this first connection)
     * @throws LockException if it refuses the connection, is not a supported database, or the table cannot be created
     */
    public static JdbcLockClient create(DataSource dataSource) {
        return builder().dataSource(dataSource).build();
    }

    /**
     * Returns a client with the default settings on connections from the JDBC driver for {@code jdbcUrl},
     * e.g. {@code jdbc:postgresql://db:5432/app?user=app&password=secret}.
     *
     * @throws BackendUnavailableException if the database does not answer within the operation timeout (at least 10 s for this first connection)
     * @throws LockException if it refuses the connection, is not a supported database, or the table cannot be created
     */
    public static JdbcLockClient create(String jdbcUrl) {
        return builder().jdbcUrl(jdbcUrl).build();
    }

    /** Returns a builder for a client with non-default settings. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Returns the CREATE TABLE statements of the default table and its queue table ({@code distlock_locks_queue}, for fair
     * locks, read-write locks and semaphores) for {@code database}, for a DBA to run.
     */
    public static String ddl(Database database) {
        return ddl(database, DEFAULT_TABLE);
    }

    /**
     * Returns the CREATE TABLE statements of table {@code table} and of its queue table ({@code <table>_queue}, for fair
     * locks, read-write locks and semaphores) for {@code database}.
     *
     * @throws IllegalArgumentException if {@code table} is not [schema.]name of plain identifiers
     */
    public static String ddl(Database database, String table) {
        if (database == null) {
            throw new IllegalArgumentException("database must not be null");
        }
        return String.join(";\n", database.dialect(LockTable.named(table)).ddl()) + ";\n";
    }

    /** Returns the database this client talks to. */
    public Database database() {
        return database;
    }

    /** Returns the table its locks live in. */
    public String table() {
        return table;
    }

    @Override
    public String toString() {
        return "JdbcLockClient[" + describe + "]";
    }

    /** Builds a {@link JdbcLockClient}; every setter validates its argument at once. */
    public static final class Builder extends ClientBuilder<Builder> {
        private @Nullable DataSource dataSource;
        private @Nullable String jdbcUrl;
        private @Nullable String user;
        private @Nullable String password;
        private LockTable table = LockTable.named(DEFAULT_TABLE);
        private boolean createTable = true;
        private int connections = DEFAULT_CONNECTIONS;
        private Duration releasePoll = DEFAULT_RELEASE_POLL;

        private Builder() {
            super(LockOptions.defaults(), DEFAULT_OPERATION_TIMEOUT);
        }

        @Override
        protected Builder self() {
            return this;
        }

        /** Takes connections from {@code dataSource} (this or {@link #jdbcUrl} is required). */
        public Builder dataSource(DataSource dataSource) {
            if (dataSource == null) {
                throw new IllegalArgumentException("dataSource must not be null");
            }
            this.dataSource = dataSource;
            return this;
        }

        /** Opens connections with the JDBC driver for {@code jdbcUrl} (this or {@link #dataSource} is required). */
        public Builder jdbcUrl(String jdbcUrl) {
            if (jdbcUrl == null || !jdbcUrl.startsWith("jdbc:")) {
                throw new IllegalArgumentException("jdbcUrl must start with jdbc:, was '" + (jdbcUrl == null ? null : ConnectionSource.withoutQuery(jdbcUrl)) + "'");
            }
            this.jdbcUrl = jdbcUrl;
            return this;
        }

        /** Sets the user and password for {@link #jdbcUrl} (default: none, or those in the URL). */
        public Builder credentials(String user, @Nullable String password) {
            if (user == null || user.isBlank()) {
                throw new IllegalArgumentException("user must not be blank");
            }
            this.user = user;
            this.password = password;
            return this;
        }

        /** Sets the lock table, optionally schema-qualified (default {@code distlock_locks}). */
        public Builder table(String table) {
            this.table = LockTable.named(table);
            return this;
        }

        /**
         * Sets whether {@link #build()} creates the table if it is missing (default true). With false, the
         * table must exist ({@link JdbcLockClient#ddl}); build() checks either way that it has distlock's
         * columns and that lock_key alone is its primary key (or unique), and refuses it otherwise. It refuses
         * a queue table too whose (lock_key, ticket) is not its primary key (or unique); one that is missing is
         * not refused: plain locks work without it, and the other kinds fail saying what to create.
         */
        public Builder createTable(boolean createTable) {
            this.createTable = createTable;
            return this;
        }

        /**
         * Sets how many connections the client opens at most, all included (default 4, at most 64): each
         * runs lock statements on a thread of its own, except that on PostgreSQL one listens for releases.
         * With a single connection, PostgreSQL's waiters poll like those of the other databases.
         */
        public Builder connections(int connections) {
            if (connections < 1 || connections > 64) {
                throw new IllegalArgumentException("connections must be between 1 and 64, was " + connections);
            }
            this.connections = connections;
            return this;
        }

        /**
         * Sets the longest interval between two release polls on databases without notifications (MySQL,
         * MariaDB, H2; PostgreSQL without pgjdbc or with a single connection), default 100 ms: a waiter
         * learns of a release within it (longer while every connection is busy: a poll waits its turn).
         * While someone waits, the client asks once per interval about all the locks its waiters wait
         * for, starting at 5 ms after each change.
         */
        public Builder releasePoll(Duration releasePoll) {
            this.releasePoll = positive(releasePoll, "releasePoll");
            return this;
        }

        /**
         * Connects, checks the database and the table (creating it if allowed) and returns the client.
         *
         * @throws IllegalArgumentException if neither a DataSource nor a JDBC URL was set
         * @throws BackendUnavailableException if the database does not answer within the operation timeout (at least 10 s for this first connection)
         * @throws LockException if it refuses the connection, is not a supported database, or the table is missing or wrong
         */
        public JdbcLockClient build() {
            ConnectionSource source = source();
            ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, task -> {
                Thread thread = new Thread(task, "distlock-jdbc-timer");
                thread.setDaemon(true);
                return thread;
            });
            // every statement schedules its deadline and almost always cancels it: removed at once, a
            // cancelled deadline does not wake the timer thread when it would have passed
            timer.setRemoveOnCancelPolicy(true);
            SqlConnections pool = new SqlConnections(source, connections, operationTimeout(), timer, "distlock-jdbc");
            try {
                Setup setup = await(pool.submit("connect", null, this::setUp, null, setupTimeout()), pool.describe());
                SqlDialect dialect = setup.database().dialect(table);
                // LISTEN takes one of the client's connections for good: with a single one, waiters poll instead
                boolean listen = setup.notifications() && connections > 1;
                if (listen) {
                    pool.reserveOne();
                }
                ReleaseWatch releases = listen
                        ? new PostgresReleaseWatch(pool, (PostgresDialect) dialect, "distlock-jdbc")
                        : new PollingReleaseWatch(pool, dialect, releasePoll, "distlock-jdbc");
                String describe = setup.database() + " " + pool.describe() + " table " + table;
                JdbcLockBackend backend = new JdbcLockBackend(pool, dialect, releases, timer, describe, operationTimeout(), releasePoll,
                        setup.queueMissing());
                try {
                    return new JdbcLockClient(LockEngine.newClient(backend, engineSettings("distlock-jdbc")), setup.database(), table.name(), describe,
                            new SqlInspector(pool, dialect, setup.queueMissing() == null, operationTimeout()));
                } catch (RuntimeException e) {
                    backend.close();
                    throw e;
                }
            } catch (RuntimeException e) {
                pool.close();
                timer.shutdownNow();
                throw e;
            }
        }

        private ConnectionSource source() {
            if (dataSource != null && jdbcUrl != null) {
                throw new IllegalArgumentException("set either dataSource or jdbcUrl, not both");
            }
            if (dataSource != null) {
                return ConnectionSource.of(dataSource, dataSource.getClass().getSimpleName());
            }
            if (jdbcUrl == null) {
                throw new IllegalArgumentException("dataSource or jdbcUrl must be set");
            }
            return ConnectionSource.of(jdbcUrl, user, password);
        }

        private Setup setUp(Connection connection) throws SQLException {
            Database database = Database.detect(connection.getMetaData());
            SqlDialect dialect = database.dialect(table);
            if (createTable) {
                try (Statement statement = connection.createStatement()) {
                    for (String ddl : dialect.ddl()) {
                        statement.execute(ddl);
                    }
                } catch (SQLException e) {
                    log.debug("creating table {} failed; checking whether it exists", table, e); // e.g. no CREATE privilege
                }
            }
            try {
                dialect.checkColumns(connection);
            } catch (SQLException e) {
                if (SqlConnections.isConnectionError(e, connection)) {
                    throw e;
                }
                throw new LockException("table " + table + " does not exist or lacks distlock's columns (" + e.getMessage() + ")"
                        + (createTable ? " and could not be created" : "") + "; create it with:\n" + ddl(database, table.name()), e);
            }
            TableKeys.checkLockKey(connection, database, dialect, table);
            String queueMissing = null;
            try {
                dialect.checkQueueColumns(connection);
            } catch (SQLException e) {
                if (SqlConnections.isConnectionError(e, connection)) {
                    throw e;
                }
                // plain locks work without it; fair locks, read-write locks and semaphores say what to run
                queueMissing = "fair locks, read-write locks and semaphores need the queue table " + dialect.queueTable()
                        + ", which does not exist or lacks distlock's columns (" + e.getMessage() + ")" + (createTable ? " and could not be created" : "")
                        + "; create it with:\n" + dialect.ddl().get(1);
            }
            if (queueMissing == null) {
                TableKeys.checkQueueKey(connection, database, dialect, table); // one that is there must have its key
            }
            return new Setup(database, database == Database.POSTGRESQL && pgjdbcPresent() && PostgresReleaseWatch.supports(connection),
                    queueMissing);
        }

        private static boolean pgjdbcPresent() {
            try {
                Class.forName("org.postgresql.PGConnection", false, JdbcLockClient.class.getClassLoader());
                return true;
            } catch (ClassNotFoundException | LinkageError e) {
                return false;
            }
        }

        /**
         * How long build() waits for the first connection and the table check: the operation timeout, but at
         * least 10 s, since a JVM's first connection also loads the driver (seconds on a busy machine).
         */
        private Duration setupTimeout() {
            return operationTimeout().compareTo(MIN_SETUP_TIMEOUT) > 0 ? operationTimeout() : MIN_SETUP_TIMEOUT;
        }

        private <T> T await(java.util.concurrent.CompletableFuture<T> future, String where) {
            try {
                return future.get(setupTimeout().toMillis() + 250, TimeUnit.MILLISECONDS);
            } catch (ExecutionException | CompletionException e) {
                Throwable cause = e.getCause();
                if (cause instanceof RuntimeException runtime) {
                    throw runtime;
                }
                throw new LockException("connecting to " + where + " failed: " + cause, cause);
            } catch (TimeoutException e) {
                throw new BackendUnavailableException("connecting to " + where + " got no answer within " + setupTimeout(), e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new LockException("interrupted while connecting to " + where, e);
            }
        }

        /** What the first connection found. */
        private record Setup(Database database, boolean notifications, @Nullable String queueMissing) {}
    }
}
