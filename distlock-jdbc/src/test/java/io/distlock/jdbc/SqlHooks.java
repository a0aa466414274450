package io.distlock.jdbc;

import io.distlock.LockKind;
import io.distlock.testkit.BackendHooks;
import io.distlock.testkit.LockClientFactory;
import io.distlock.testkit.TestDeployment;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * The contract's hooks for one SQL database: the plain lock, read from the lock table. A name's row is kept for good
 * by design (it carries the fencing token, see guarantees.md); what must not outlive the test's clients is a holder.
 */
final class SqlHooks extends BackendHooks {
    private final SqlDeployment database;

    SqlHooks(SqlDeployment database) {
        this.database = database;
    }

    @Override
    public Class<? extends LockClientFactory> factoryClass() {
        return JdbcClientFactory.class;
    }

    @Override
    public TestDeployment deployment() {
        return database;
    }

    @Override
    public Set<LockKind> kinds() {
        return Set.of(LockKind.LOCK);
    }

    @Override
    public boolean heldInBackend(LockKind kind, String name) {
        return query("SELECT 1 FROM distlock_locks WHERE lock_key = ? AND owner IS NOT NULL AND expires_at > " + database.now(), name).isPresent();
    }

    @Override
    public OptionalLong lastTokenInBackend(LockKind kind, String name) {
        return query("SELECT fence FROM distlock_locks WHERE lock_key = ?", name).map(OptionalLong::of).orElse(OptionalLong.empty());
    }

    /** A live holder's row; the lock table keys rows by a hash of the name, so names that only start with this one are not seen. */
    @Override
    public List<String> leftoversInBackend(String name) {
        return heldInBackend(LockKind.LOCK, name) ? List.of("the row of '" + name + "' in distlock_locks (held)") : List.of();
    }

    @Override
    public String providerId() {
        return "jdbc";
    }

    @Override
    public Optional<String> registryTarget() {
        return Optional.of(database.target());
    }

    private Optional<Long> query(String sql, String name) {
        try (Connection connection = database.connect(); PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setBytes(1, LockTable.key(name));
            try (ResultSet row = statement.executeQuery()) {
                return row.next() ? Optional.of(row.getLong(1)) : Optional.empty();
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public String toString() {
        return "SqlHooks[" + database + "]";
    }
}
