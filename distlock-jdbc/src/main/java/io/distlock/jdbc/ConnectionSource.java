package io.distlock.jdbc;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/** Where the client's connections come from: an application's DataSource, or a JDBC URL. */
interface ConnectionSource {

    /** Opens a new connection. */
    Connection open() throws SQLException;

    /** Returns where the connections go, for messages; no secrets. */
    String describe();

    /** Connections from a DataSource (usually a pool, which then lends the client some of its connections). */
    static ConnectionSource of(DataSource dataSource, String describe) {
        return new ConnectionSource() {
            @Override
            public Connection open() throws SQLException {
                return dataSource.getConnection();
            }

            @Override
            public String describe() {
                return describe;
            }
        };
    }

    /** Connections from the JDBC driver for this URL. */
    static ConnectionSource of(String jdbcUrl, @Nullable String user, @Nullable String password) {
        Properties properties = new Properties();
        if (user != null) {
            properties.setProperty("user", user);
        }
        if (password != null) {
            properties.setProperty("password", password);
        }
        String describe = withoutQuery(jdbcUrl);
        return new ConnectionSource() {
            @Override
            public Connection open() throws SQLException {
                return DriverManager.getConnection(jdbcUrl, properties);
            }

            @Override
            public String describe() {
                return describe;
            }
        };
    }

    /** Returns the URL without its query and without user info (where passwords may be). */
    static String withoutQuery(String url) {
        String bare = url;
        int query = bare.indexOf('?');
        if (query >= 0) {
            bare = bare.substring(0, query);
        }
        int semicolon = bare.indexOf(';'); // H2 settings
        if (semicolon >= 0) {
            bare = bare.substring(0, semicolon);
        }
        return bare.replaceFirst("//[^/@]*@", "//");
    }
}
