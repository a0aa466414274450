package io.distlock.jdbc;

import io.distlock.Finding;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/** What the SQL doctor reads of one database's own settings, and how it judges them; one implementation per database. */
interface ServerSettings {

    /** Returns whether the server, or the sessions of the connection's user, refuse writes ({@code jdbc.read-only}). */
    Finding readOnly(Connection connection) throws SQLException;

    /** Returns the server's statement and lock-wait timeouts against {@code operationTimeout} ({@code jdbc.timeouts}). */
    Finding timeouts(Connection connection, Duration operationTimeout) throws SQLException;

    /** Returns whether several nodes take writes ({@code jdbc.multi-primary}), or empty where that cannot be read. */
    default Optional<Finding> multiPrimary(Connection connection) throws SQLException {
        return Optional.empty();
    }

    /** Returns the server's limits on connections that bind the connection's user, with what each counts open now. */
    default List<ConnectionHeadroom.Limit> connectionLimits(Connection connection) throws SQLException {
        return List.of();
    }

    /** Returns the settings reader of {@code database}. */
    static ServerSettings of(Database database) {
        return switch (database) {
            case POSTGRESQL -> new PostgresSettings();
            case MYSQL -> new MySqlSettings();
            case H2 -> new H2Settings();
        };
    }
}
