package io.distlock.jdbc;

import io.distlock.testkit.LeaseLockContract;
import io.distlock.testkit.LockClientFactory;
import io.distlock.testkit.TestDeployment;
import java.io.PrintWriter;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * What the SQL contract tiers share: the database under test, the raw-state hooks read from the lock
 * table, logins of a test's own (so that the server can count a client's sessions), and DataSources
 * that hand out connections as a configured pool would.
 */
abstract class SqlContractSupport extends LeaseLockContract {
    private static final AtomicInteger users = new AtomicInteger();

    /** Returns the database under test. */
    protected abstract SqlDeployment database();

    @Override
    protected final TestDeployment deployment() {
        return database();
    }

    @Override
    protected Class<? extends LockClientFactory> factoryClass() {
        return JdbcClientFactory.class;
    }

    @Override
    protected boolean lockedInBackend(String name) {
        return query("SELECT 1 FROM distlock_locks WHERE lock_key = ? AND owner IS NOT NULL AND expires_at > " + database().now(), name).isPresent();
    }

    @Override
    protected OptionalLong lastTokenInBackend(String name) {
        return query("SELECT fence FROM distlock_locks WHERE lock_key = ?", name).map(OptionalLong::of).orElse(OptionalLong.empty());
    }

    private Optional<Long> query(String sql, String name) {
        try (Connection connection = database().connect(); PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setBytes(1, LockTable.key(name));
            try (ResultSet row = statement.executeQuery()) {
                return row.next() ? Optional.of(row.getLong(1)) : Optional.empty();
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Returns the name of a new login of this test's own (created by {@link SqlDeployment#urlAs}), unique in the run. */
    protected static String newUser() {
        return "dl_user" + users.incrementAndGet() + "_" + Long.toString(System.nanoTime() % 1_000_000_000L, 36);
    }

    /** Returns how many sessions of {@code user} the server has open now. */
    protected long sessionsOf(String user) {
        return count(database().sessionsOfUser(), user);
    }

    /** Returns how many sessions of {@code user} wait for a row lock now. */
    protected long blockedSessionsOf(String user) {
        return count(database().blockedSessionsOfUser(), user);
    }

    private long count(String query, String user) {
        try {
            return database().count(query, user);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Sets up each new connection of a {@link #dataSource}. */
    @FunctionalInterface
    protected interface ConnectionSetup {
        void apply(Connection connection) throws SQLException;
    }

    /** Returns a DataSource that opens connections to {@code url} and sets each up as a configured pool would hand it out. */
    protected static DataSource dataSource(String url, String describe, ConnectionSetup setup) {
        return (DataSource) Proxy.newProxyInstance(SqlContractSupport.class.getClassLoader(), new Class<?>[] {DataSource.class}, (proxy, method, args) -> {
            switch (method.getName()) {
                case "getConnection" -> {
                    Connection connection = DriverManager.getConnection(url);
                    setup.apply(connection);
                    return connection;
                }
                case "getLogWriter" -> {
                    return (PrintWriter) null;
                }
                case "getParentLogger" -> {
                    return Logger.getGlobal();
                }
                case "isWrapperFor" -> {
                    return false;
                }
                case "toString" -> {
                    return describe;
                }
                case "hashCode" -> {
                    return System.identityHashCode(proxy);
                }
                case "equals" -> {
                    return proxy == args[0];
                }
                default -> {
                    return null;
                }
            }
        });
    }
}
