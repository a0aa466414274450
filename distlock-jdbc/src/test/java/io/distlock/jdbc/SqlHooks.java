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
 * The contract's hooks for one SQL database: the plain lock, read from the lock table, and the queued kinds, read
 * from the queue table. A name's row (and a queued kind's counter row) is kept for good by design (it carries the
 * fencing token, see guarantees.md); what must not outlive the test's clients is a holder or a live queue row.
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
        return Set.of(LockKind.values());
    }

    @Override
    public boolean heldInBackend(LockKind kind, String name) {
        return switch (kind) {
            case LOCK -> query("SELECT 1 FROM distlock_locks WHERE lock_key = ? AND owner IS NOT NULL AND expires_at > " + database.now(),
                    LockTable.key(name)).isPresent();
            case FAIR_LOCK -> !SqlQueue.Rule.EXCLUSIVE.holders(live("fair", name), 0).isEmpty();
            case READ_WRITE_LOCK -> !SqlQueue.Rule.READ.holders(live("rw", name), 0).isEmpty()
                    || !SqlQueue.Rule.WRITE.holders(live("rw", name), 0).isEmpty();
            case SEMAPHORE -> !live("sem", name).isEmpty(); // the first live row holds whenever there is one
        };
    }

    @Override
    public OptionalLong lastTokenInBackend(LockKind kind, String name) {
        Optional<Long> last = switch (kind) {
            case LOCK -> query("SELECT fence FROM distlock_locks WHERE lock_key = ?", LockTable.key(name));
            // the counter: the last number a join or a grant took, so at least the last token
            case FAIR_LOCK -> query("SELECT fence FROM distlock_locks_queue WHERE lock_key = ? AND ticket = 0", LockTable.key("fair:" + name));
            case READ_WRITE_LOCK -> query("SELECT fence FROM distlock_locks_queue WHERE lock_key = ? AND ticket = 0", LockTable.key("rw:" + name));
            case SEMAPHORE -> query("SELECT fence FROM distlock_locks_queue WHERE lock_key = ? AND ticket = 0", LockTable.key("sem:" + name));
        };
        return last.map(OptionalLong::of).orElse(OptionalLong.empty());
    }

    /**
     * A live holder's row, and every live queue row of the name's queued kinds; both tables key rows by a hash of the
     * name, so names that only start with this one are not seen.
     */
    @Override
    public List<String> leftoversInBackend(String name) {
        List<String> left = new java.util.ArrayList<>();
        if (heldInBackend(LockKind.LOCK, name)) {
            left.add("the row of '" + name + "' in distlock_locks (held)");
        }
        for (String kind : List.of("fair", "rw", "sem")) {
            live(kind, name).forEach(row -> left.add("the " + kind + " queue row " + row + " of '" + name + "' in distlock_locks_queue"));
        }
        return left;
    }

    /** The live rows of a queued kind's name, in ticket order. */
    private List<SqlQueue.Row> live(String kind, String name) {
        try (Connection connection = database.connect(); PreparedStatement statement = connection.prepareStatement("SELECT ticket, lock_role, owner, "
                + "writer, permits, fence FROM distlock_locks_queue WHERE lock_key = ? AND ticket > 0 AND expires_at > " + database.now()
                + " ORDER BY ticket")) {
            statement.setBytes(1, LockTable.key(kind + ":" + name));
            List<SqlQueue.Row> rows = new java.util.ArrayList<>();
            try (ResultSet row = statement.executeQuery()) {
                while (row.next()) {
                    rows.add(new SqlQueue.Row(row.getLong(1), row.getString(2).charAt(0), row.getString(3), row.getLong(4), row.getInt(5),
                            row.getLong(6), 0));
                }
            }
            return rows;
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public boolean hasInspector() {
        return true;
    }

    @Override
    public String providerId() {
        return "jdbc";
    }

    @Override
    public Optional<String> registryTarget() {
        return Optional.of(database.target());
    }

    private Optional<Long> query(String sql, byte[] key) {
        try (Connection connection = database.connect(); PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setBytes(1, key);
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

    @Override
    public boolean keepsLocksWithoutRenewals() {
        return true;
    }
}
