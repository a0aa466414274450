package io.distlock.jdbc;

import io.distlock.LockKind;
import io.distlock.testkit.BackendHooks;
import io.distlock.testkit.ContractSupport;
import java.io.PrintWriter;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * What the SQL tiers of the contract share (the tiers every backend runs come from {@link SqlHooks}): the
 * database under test, logins of a test's own (so that the server can count a client's sessions), and DataSources
 * that hand out connections as a configured pool would.
 */
abstract class SqlContractSupport extends ContractSupport {
    private static final AtomicInteger users = new AtomicInteger();

    /** Returns the database under test. */
    protected abstract SqlDeployment database();

    @Override
    protected BackendHooks hooks() {
        return new SqlHooks(database());
    }

    /** Returns the fencing token the lock table remembers for {@code name}, read directly. */
    protected OptionalLong lastTokenInBackend(String name) {
        return hooks().lastTokenInBackend(LockKind.LOCK, name);
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
