package io.distlock.jdbc;

import io.distlock.LockClient;
import io.distlock.OpenOptions;
import io.distlock.spi.LockBackendProvider;
import java.util.List;

/**
 * SQL databases in the registry: a JDBC URL of PostgreSQL, MySQL/MariaDB or H2, with the user and password as the
 * driver takes them (usually {@code ?user=...&password=...}); the driver must be on the classpath. The namespace
 * is the lock table (created if missing).
 */
public final class JdbcBackendProvider implements LockBackendProvider {

    /** For {@link java.util.ServiceLoader}. */
    public JdbcBackendProvider() {}

    @Override
    public String id() {
        return "jdbc";
    }

    @Override
    public String description() {
        return "SQL: PostgreSQL, MySQL/MariaDB or H2 over JDBC; one row per lock in a table";
    }

    @Override
    public List<String> schemes() {
        return List.of("jdbc:postgresql", "jdbc:mysql", "jdbc:mariadb", "jdbc:h2");
    }

    @Override
    public List<String> exampleTargets() {
        return List.of("jdbc:postgresql://host:5432/db?user=app&password=secret", "jdbc:mariadb://host:3306/db?user=app&password=secret",
                "jdbc:h2:tcp://host:9092/db");
    }


    @Override
    public LockClient open(String target, OpenOptions options) {
        JdbcLockClient.Builder builder = JdbcLockClient.builder().jdbcUrl(target);
        options.namespace().ifPresent(builder::table);
        return builder.apply(options).build();
    }
}
