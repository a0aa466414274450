package io.distlock.jdbc;

import io.distlock.DoctorCheck;
import io.distlock.Finding;
import io.distlock.LockClient;
import io.distlock.OpenOptions;
import io.distlock.spi.LockBackendProvider;
import io.distlock.spi.TargetParameters;
import java.net.PasswordAuthentication;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import javax.sql.DataSource;

/**
 * SQL databases in the registry: a JDBC URL of PostgreSQL, MySQL/MariaDB or H2, with the user and password as the
 * driver takes them (usually {@code ?user=...&password=...}); the driver must be on the classpath. The namespace
 * is the lock table, created if missing unless the target says {@code ?createTable=false} (then it must exist).
 *
 * <p>Resources ({@link OpenOptions#resource}): a {@link DataSource} to take connections from instead of opening its own
 * (the target then names the database, the application's own, to pick this backend: its URL as the driver reports it);
 * a {@link PasswordAuthentication} with the user and password for the target (not with a DataSource, which has its own).
 */
public final class JdbcBackendProvider implements LockBackendProvider {
    /** The target parameter that says whether to create a missing lock table. */
    static final String CREATE_TABLE = "createTable";

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

    /** Every kind: the plain lock in the lock table, fair locks, read-write locks and semaphores in its queue table. */
    @Override
    public java.util.Set<io.distlock.LockKind> kinds() {
        return java.util.EnumSet.allOf(io.distlock.LockKind.class);
    }

    @Override
    public boolean hasInspector() {
        return true;
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
        TargetParameters parameters = TargetParameters.take(target, Set.of(CREATE_TABLE));
        JdbcLockClient.Builder builder = JdbcLockClient.builder();
        Optional<DataSource> dataSource = options.resourceOf(DataSource.class);
        Optional<PasswordAuthentication> credentials = options.resourceOf(PasswordAuthentication.class);
        if (dataSource.isPresent()) {
            if (credentials.isPresent()) {
                throw new IllegalArgumentException("credentials apply to a database the client connects to itself; the DataSource "
                        + "offered has its own");
            }
            builder.dataSource(dataSource.get());
        } else {
            builder.jdbcUrl(parameters.target());
            credentials.ifPresent(user -> builder.credentials(user.getUserName(),
                    user.getPassword().length == 0 ? null : new String(user.getPassword()))); // no password: none, as the builder takes it
        }
        parameters.bool(CREATE_TABLE).ifPresent(builder::createTable);
        options.namespace().ifPresent(builder::table);
        return builder.apply(options).build();
    }

    /**
     * Examines the database as {@link #open} would use it (the same URL, credentials or DataSource, table and
     * {@code createTable}), read only: read-only mode, the lock and queue tables' keys, isolation, timeouts against the
     * operation timeout, Galera, round trips; see {@link #doctorChecks()}.
     */
    @Override
    public Optional<List<Finding>> diagnose(String target, OpenOptions options) {
        return Optional.of(SqlDoctor.diagnose(target, options));
    }

    /**
     * Drops the namespace's lock table and its queue table ({@code <table>_queue}), where they exist with distlock's columns,
     * connecting as {@link #open} does; no other table or object is derived from the name. A namespace that names a table
     * without distlock's columns (the application's own) is refused and nothing is dropped.
     *
     * @return how many tables were dropped: 0, 1 or 2
     * @throws IllegalArgumentException if no namespace is named or it is the default table {@code distlock_locks} (the
     *     application's), if it is not [schema.]table of plain identifiers, or names a table that is not distlock's
     */
    @Override
    public long removeNamespace(String target, OpenOptions options) {
        return NamespaceRemoval.remove(target, options);
    }

    @Override
    public List<DoctorCheck> doctorChecks() {
        return SqlDoctor.checks();
    }
}
