package io.distlock.jdbc;

import io.distlock.BackendUnavailableException;
import io.distlock.LockException;
import io.distlock.LockInspector;
import io.distlock.LockKind;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * Reads the locks of a client's tables straight from the database: the plain locks held in the lock table (no queue:
 * waiters -1), and the fair locks, read-write locks and semaphores with a live row in the queue table, each judged by
 * its {@link SqlQueue.Rule}. Both tables key rows by a hash of the name, so the names are matched against the pattern
 * here, over the held rows and the live queue rows only. Lease times are read on the database clock.
 */
final class SqlInspector implements LockInspector {
    private final SqlConnections connections;
    private final SqlDialect dialect;
    private final boolean hasQueue;
    private final Duration timeout;

    SqlInspector(SqlConnections connections, SqlDialect dialect, boolean hasQueue, Duration timeout) {
        this.connections = connections;
        this.dialect = dialect;
        this.hasQueue = hasQueue;
        this.timeout = timeout;
    }

    @Override
    public List<LockState> list(String pattern) {
        if (pattern == null) {
            throw new IllegalArgumentException("pattern must not be null");
        }
        try {
            return connections.submit("inspection", pattern, connection -> read(connection, pattern))
                    .get(timeout.toMillis() + 1000, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockException("inspection of '" + pattern + "' was interrupted", e);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException runtime ? runtime : new LockException("inspection failed: " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            throw new BackendUnavailableException("inspection of '" + pattern + "' got no answer within " + timeout, e);
        }
    }

    private List<LockState> read(Connection connection, String pattern) throws SQLException {
        List<LockState> found = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement("SELECT lock_name, owner, fence, " + dialect.millisUntilExpiry() + " FROM "
                + dialect.table.name() + " WHERE owner IS NOT NULL AND expires_at > " + dialect.now()); ResultSet row = select.executeQuery()) {
            while (row.next()) {
                String name = row.getString(1);
                if (LockInspector.matches(pattern, name)) {
                    found.add(new LockState(name, LockKind.LOCK, List.of(new Holder(row.getString(2), row.getLong(3),
                            Duration.ofMillis(Math.max(0, row.getLong(4))), "hold")), -1, 0));
                }
            }
        }
        if (hasQueue) {
            readQueues(connection, pattern, found);
        }
        found.sort(Comparator.comparing(LockState::name).thenComparing(LockState::kind));
        return found;
    }

    /** One read of every live queue row, grouped by kind and name (a name's rows in ticket order). */
    private void readQueues(Connection connection, String pattern, List<LockState> found) throws SQLException {
        record Queue(String name, LockKind kind, List<SqlQueue.Row> live) {}
        Map<String, Queue> queues = new LinkedHashMap<>();
        try (PreparedStatement select = connection.prepareStatement("SELECT lock_key, lock_name, ticket, lock_role, owner, writer, permits, fence, "
                + dialect.millisUntilExpiry() + " FROM " + dialect.queueTable() + " WHERE ticket > 0 AND expires_at > " + dialect.now()
                + " ORDER BY lock_key, ticket"); ResultSet row = select.executeQuery()) {
            while (row.next()) {
                String name = row.getString(2);
                LockKind kind = kindOf(row.getString(4).charAt(0));
                if (kind == null || !LockInspector.matches(pattern, name)) {
                    continue;
                }
                String key = java.util.HexFormat.of().formatHex(row.getBytes(1));
                queues.computeIfAbsent(key, k -> new Queue(name, kind, new ArrayList<>())).live().add(new SqlQueue.Row(row.getLong(3), row.getString(4).charAt(0),
                        row.getString(5), row.getLong(6), row.getInt(7), row.getLong(8), row.getLong(9)));
            }
        }
        queues.values().forEach(queue -> found.add(state(queue.name(), queue.kind(), queue.live())));
    }

    private static LockState state(String name, LockKind kind, List<SqlQueue.Row> live) {
        List<Holder> holders = new ArrayList<>();
        int permits = 0;
        switch (kind) {
            case READ_WRITE_LOCK -> {
                SqlQueue.Rule.WRITE.holders(live, 0).forEach(row -> holders.add(holder(row, "write")));
                SqlQueue.Rule.READ.holders(live, 0).forEach(row -> holders.add(holder(row, "read")));
            }
            case SEMAPHORE -> {
                permits = live.get(0).permits();
                SqlQueue.Rule.PERMIT.holders(live, permits).forEach(row -> holders.add(holder(row, "permit")));
            }
            default -> SqlQueue.Rule.EXCLUSIVE.holders(live, 0).forEach(row -> holders.add(holder(row, "hold")));
        }
        return new LockState(name, kind, holders, live.size() - holders.size(), permits);
    }

    /** A holder from its row: a row at the head that has not taken its grant yet shows token 0 and its heartbeat. */
    private static Holder holder(SqlQueue.Row row, String role) {
        return new Holder(row.owner(), Math.max(0, row.fence()), Duration.ofMillis(Math.max(0, row.millisLeft())), role);
    }

    private static @Nullable LockKind kindOf(char role) {
        return switch (role) {
            case 'X' -> LockKind.FAIR_LOCK;
            case 'R', 'W', SqlQueue.Rule.DOWNGRADED -> LockKind.READ_WRITE_LOCK;
            case 'P' -> LockKind.SEMAPHORE;
            default -> null;
        };
    }
}
