package io.distlock.jdbc;

import io.distlock.LockException;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.util.Locale;

/** The databases distlock-jdbc supports; each has its own SQL for the lock table. */
public enum Database {
    /** PostgreSQL 12 or newer: expiry on {@code clock_timestamp()}, waiters woken by LISTEN/NOTIFY. */
    POSTGRESQL,
    /** MySQL 8.0 or newer, or MariaDB 10.6 or newer (InnoDB): expiry on {@code UTC_TIMESTAMP(6)}, waiters poll. */
    MYSQL,
    /** H2 2.x (server or embedded): expiry on {@code CURRENT_TIMESTAMP}, waiters poll. */
    H2;

    /**
     * Returns the database a connection talks to.
     *
     * @throws LockException naming the product and version if it is not one of these, or too old
     */
    static Database detect(DatabaseMetaData metaData) throws SQLException {
        String product = metaData.getDatabaseProductName();
        String version = metaData.getDatabaseProductVersion();
        int major = metaData.getDatabaseMajorVersion();
        int minor = metaData.getDatabaseMinorVersion();
        String lower = product.toLowerCase(Locale.ROOT);
        if (lower.contains("postgresql")) {
            return atLeast(POSTGRESQL, major >= 12, product, version, "12");
        }
        if (lower.contains("mariadb") || version.toLowerCase(Locale.ROOT).contains("mariadb")) {
            return atLeast(MYSQL, major > 10 || (major == 10 && minor >= 6), product, version, "10.6");
        }
        if (lower.contains("mysql")) {
            return atLeast(MYSQL, major >= 8, product, version, "8.0");
        }
        if (lower.equals("h2")) {
            return atLeast(H2, major >= 2, product, version, "2.0");
        }
        throw new LockException("distlock-jdbc supports PostgreSQL, MySQL, MariaDB and H2, not " + product + " " + version);
    }

    private static Database atLeast(Database database, boolean recentEnough, String product, String version, String minimum) {
        if (!recentEnough) {
            throw new LockException("distlock-jdbc needs " + product + " " + minimum + " or newer, found " + version);
        }
        return database;
    }

    /** Returns the SQL of this database for a lock table. */
    SqlDialect dialect(LockTable table) {
        return switch (this) {
            case POSTGRESQL -> new PostgresDialect(table);
            case MYSQL -> new MySqlDialect(table);
            case H2 -> new H2Dialect(table);
        };
    }
}
