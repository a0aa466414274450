package io.distlock.fencing.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.fencing.FencingContext;
import io.distlock.fencing.PausedHolder;
import io.distlock.fencing.StaleTokenException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The SQL fencing guards on a real database: a lower token is refused and the newer holder's write stands, the same
 * holder writes again, tokens compare correctly at the edges, concurrent writers end with the highest token's write,
 * and the guard table works in the caller's transaction. Each database's test class supplies the JDBC URL.
 */
abstract class SqlFencingContract {
    private static final AtomicInteger TABLES = new AtomicInteger();
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private final List<Connection> connections = new ArrayList<>();

    /** Returns the JDBC URL of the database under test. */
    protected abstract String jdbcUrl();

    @AfterEach
    void closeAll() throws SQLException {
        threads.shutdownNow();
        for (Connection connection : connections) {
            connection.close();
        }
    }

    private Connection connect() throws SQLException {
        Connection connection = DriverManager.getConnection(jdbcUrl());
        connections.add(connection);
        return connection;
    }

    /** Creates a stock table of its own for the test, with one row per sku (quantity 100, fence NULL). */
    private String stockTable(String... skus) throws SQLException {
        String table = "stock_" + TABLES.incrementAndGet();
        try (Statement statement = connect().createStatement()) {
            statement.execute("CREATE TABLE " + table + " (sku VARCHAR(40) NOT NULL PRIMARY KEY, quantity BIGINT NOT NULL, fence BIGINT)");
            for (String sku : skus) {
                statement.execute("INSERT INTO " + table + " (sku, quantity) VALUES ('" + sku + "', 100)");
            }
        }
        return table;
    }

    private long read(String table, String column, String sku) throws SQLException {
        try (PreparedStatement select = connect().prepareStatement("SELECT " + column + " FROM " + table + " WHERE sku = ?")) {
            select.setString(1, sku);
            try (ResultSet row = select.executeQuery()) {
                assertThat(row.next()).as("row %s", sku).isTrue();
                return row.getLong(1);
            }
        }
    }

    @Test
    void aLowerTokenIsRefusedAndTheNewerHoldersWriteStands() throws Exception {
        String table = stockTable("sku-1");
        FencedColumn stock = FencedColumn.of(table, "fence");
        Connection connection = connect();
        assertThat(stock.update(connection, 5, "quantity = quantity - ?", "sku = ?", 1, "sku-1")).isOne();
        // the holder with token 3 was paused past its lease; the lock went to the holder of 5, who wrote
        assertThatThrownBy(() -> stock.update(connection, 3, "quantity = quantity - ?", "sku = ?", 1, "sku-1"))
                .isInstanceOfSatisfying(StaleTokenException.class, stale -> {
                    assertThat(stale.presented()).isEqualTo(3);
                    assertThat(stale.highestSeen()).isEqualTo(5);
                    assertThat(stale.resource()).contains(table, "sku-1");
                });
        assertThat(read(table, "quantity", "sku-1")).as("only the newer holder's decrement").isEqualTo(99);
        assertThat(read(table, "fence", "sku-1")).isEqualTo(5);
    }

    /**
     * The story fencing is for, with a real lock on this database: a holder JVM frozen past its lease (SIGSTOP, its
     * watchdog frozen too) writes once thawed; the newer holder has written meanwhile; the late write is refused.
     */
    @Test
    void aHolderFrozenPastItsLeaseHasItsLateWriteRefusedAndTheNewerWriteStands() throws Exception {
        String table = stockTable("sku-1");
        FencedColumn stock = FencedColumn.of(table, "fence");
        long[] newer = new long[1];
        String outcome = PausedHolder.lateWriteAfterANewerHolder(jdbcUrl(), "lock-" + table, List.of("sql", jdbcUrl(), table, "sku-1", "7"), token -> {
            newer[0] = token;
            try {
                assertThat(stock.update(connect(), token, "quantity = ?", "sku = ?", 42, "sku-1")).isOne();
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(outcome).isEqualTo("STALE " + newer[0]);
        assertThat(read(table, "quantity", "sku-1")).as("the newer holder's write").isEqualTo(42);
        assertThat(read(table, "fence", "sku-1")).isEqualTo(newer[0]);
    }

    @Test
    void withoutATokenTheGuardsTakeTheCurrentOneAndRefuseWhenThereIsNone() throws Exception {
        String table = stockTable("sku-1");
        FencedColumn stock = FencedColumn.of(table, "fence");
        FenceTable fences = fenceTable();
        Connection connection = connect();
        assertThatThrownBy(() -> stock.update(connection, "quantity = ?", "sku = ?", 1, "sku-1")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("no fencing token");
        connection.setAutoCommit(false);
        assertThatThrownBy(() -> fences.check(connection, "order-1")).isInstanceOf(IllegalStateException.class).hasMessageContaining("no fencing token");
        try (FencingContext.Scope scope = FencingContext.enter(12)) {
            fences.check(connection, "order-1");
            assertThat(stock.update(connection, "quantity = ?", "sku = ?", 5, "sku-1")).isOne();
            connection.commit();
        }
        assertThat(read(table, "fence", "sku-1")).isEqualTo(12);
        assertThat(read(table, "quantity", "sku-1")).isEqualTo(5);
        assertThat(highest(fences, "order-1")).isEqualTo(12);
    }

    @Test
    void theSameHolderWritesAgainWithItsTokenAndAHigherOneTakesOver() throws Exception {
        String table = stockTable("sku-1");
        FencedColumn stock = FencedColumn.of(table, "fence");
        Connection connection = connect();
        assertThat(stock.update(connection, 7, "quantity = quantity - ?", "sku = ?", 1, "sku-1")).isOne();
        assertThat(stock.update(connection, 7, "quantity = quantity - ?", "sku = ?", 1, "sku-1")).isOne();
        assertThat(stock.update(connection, 8, "quantity = ?", "sku = ?", 50, "sku-1")).isOne();
        assertThatThrownBy(() -> stock.update(connection, 7, "quantity = quantity - ?", "sku = ?", 1, "sku-1")).isInstanceOf(StaleTokenException.class);
        assertThat(read(table, "quantity", "sku-1")).isEqualTo(50);
    }

    @Test
    void noMatchingRowIsZeroNotAStaleTokenAndOnlyStaleRowsOfTheConditionCount() throws Exception {
        String table = stockTable("sku-1", "sku-2");
        FencedColumn stock = FencedColumn.of(table, "fence");
        Connection connection = connect();
        assertThat(stock.update(connection, 9, "quantity = ?", "sku = ?", 1, "no-such-sku")).isZero();
        stock.update(connection, 9, "quantity = ?", "sku = ?", 1, "sku-1");
        assertThat(stock.update(connection, 2, "quantity = ?", "sku = ?", 2, "sku-2")).as("another row's token does not count").isOne();
    }

    @Test
    void tokensCompareCorrectlyAtTheEdgesAndNonPositiveTokensAreRefused() throws Exception {
        String table = stockTable("sku-1");
        FencedColumn stock = FencedColumn.of(table, "fence");
        Connection connection = connect();
        stock.update(connection, Long.MAX_VALUE - 1, "quantity = ?", "sku = ?", 1, "sku-1");
        stock.update(connection, Long.MAX_VALUE, "quantity = ?", "sku = ?", 2, "sku-1");
        assertThatThrownBy(() -> stock.update(connection, Long.MAX_VALUE - 1, "quantity = ?", "sku = ?", 3, "sku-1"))
                .isInstanceOfSatisfying(StaleTokenException.class, stale -> assertThat(stale.highestSeen()).isEqualTo(Long.MAX_VALUE));
        assertThatThrownBy(() -> stock.update(connection, 1, "quantity = ?", "sku = ?", 3, "sku-1")).isInstanceOf(StaleTokenException.class);
        assertThatThrownBy(() -> stock.update(connection, 0, "quantity = ?", "sku = ?", 3, "sku-1"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("positive");
        assertThatThrownBy(() -> stock.update(connection, -5, "quantity = ?", "sku = ?", 3, "sku-1")).isInstanceOf(IllegalArgumentException.class);
        assertThat(read(table, "quantity", "sku-1")).isEqualTo(2);
    }

    @Test
    void badArgumentsAreRefusedBeforeAnythingRuns() throws Exception {
        String table = stockTable("sku-1");
        FencedColumn stock = FencedColumn.of(table, "fence");
        Connection connection = connect();
        assertThatThrownBy(() -> FencedColumn.of("stock; DROP TABLE x", "fence")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("table");
        assertThatThrownBy(() -> FencedColumn.of(table, "")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("token column");
        assertThatThrownBy(() -> stock.update(connection, 1, "quantity = 1; DELETE FROM x", "sku = ?", "sku-1"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("';'");
        assertThatThrownBy(() -> stock.update(connection, 1, "quantity = ?", "sku = ?", "sku-1"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("take 2 parameters");
        assertThat(read(table, "quantity", "sku-1")).as("nothing ran").isEqualTo(100);
    }

    /** Writers with tokens 1..16 in a shuffled order, each on a connection of its own, at once: the highest token's write stands. */
    @Test
    void concurrentWritersWithInterleavedTokensEndWithTheHighestTokensWrite() throws Exception {
        String table = stockTable("sku-1");
        FencedColumn stock = FencedColumn.of(table, "fence");
        List<Long> tokens = new ArrayList<>();
        for (long token = 1; token <= 16; token++) {
            tokens.add(token);
        }
        Collections.shuffle(tokens, new java.util.Random(31));
        List<Future<Boolean>> writes = new ArrayList<>();
        for (long token : tokens) {
            Connection connection = connect();
            writes.add(threads.submit(() -> {
                try {
                    return stock.update(connection, token, "quantity = ?", "sku = ?", token, "sku-1") == 1;
                } catch (StaleTokenException stale) {
                    assertThat(stale.highestSeen()).isGreaterThan(token);
                    return false;
                }
            }));
        }
        int landed = 0;
        for (Future<Boolean> write : writes) {
            landed += write.get(60, TimeUnit.SECONDS) ? 1 : 0;
        }
        assertThat(landed).as("writes that landed").isBetween(1, 16);
        assertThat(read(table, "quantity", "sku-1")).as("the highest token's value").isEqualTo(16);
        assertThat(read(table, "fence", "sku-1")).isEqualTo(16);
    }

    private FenceTable fenceTable() throws SQLException {
        FenceTable fences = FenceTable.named("fences_" + TABLES.incrementAndGet());
        fences.create(connect());
        return fences;
    }

    private static <T> T inTransaction(Connection connection, Callable<T> work) throws Exception {
        connection.setAutoCommit(false);
        try {
            T result = work.call();
            connection.commit();
            return result;
        } catch (Exception e) {
            connection.rollback();
            throw e;
        }
    }

    @Test
    void theFenceTableRefusesALowerTokenAndARollbackTakesTheTokenBack() throws Exception {
        FenceTable fences = fenceTable();
        Connection connection = connect();
        inTransaction(connection, () -> {
            fences.check(connection, "order-7", 10);
            return null;
        });
        assertThatThrownBy(() -> inTransaction(connection, () -> {
            fences.check(connection, "order-7", 9);
            return null;
        })).isInstanceOfSatisfying(StaleTokenException.class, stale -> {
            assertThat(stale.presented()).isEqualTo(9);
            assertThat(stale.highestSeen()).isEqualTo(10);
            assertThat(stale.resource()).contains("order-7");
        });
        connection.setAutoCommit(false);
        fences.check(connection, "order-7", 20);
        connection.rollback();
        inTransaction(connection, () -> {
            fences.check(connection, "order-7", 11); // 20 was rolled back with its transaction
            fences.check(connection, "order-7", 11); // the same holder again
            fences.check(connection, "other-resource", 1);
            return null;
        });
        assertThat(highest(fences, "order-7")).isEqualTo(11);
    }

    private long highest(FenceTable fences, String resource) throws SQLException {
        try (PreparedStatement select = connect().prepareStatement("SELECT highest_token FROM " + fences.tableName()
                + " WHERE resource = ?")) {
            select.setString(1, resource);
            try (ResultSet row = select.executeQuery()) {
                assertThat(row.next()).isTrue();
                return row.getLong(1);
            }
        }
    }

    /**
     * A writer with a lower token that checks while a newer transaction has recorded its token and not yet committed is
     * refused once that transaction commits (it waits for the row, then reads the newer token), not let through.
     */
    @Test
    void aLowerTokenCheckedBeforeTheNewerTransactionCommitsIsRefusedOnceItDoes() throws Exception {
        FenceTable fences = fenceTable();
        for (boolean rowExists : new boolean[] {false, true}) {
            String resource = "order-" + rowExists;
            if (rowExists) {
                Connection first = connect();
                inTransaction(first, () -> {
                    fences.check(first, resource, 1);
                    return null;
                });
            }
            Connection newer = connect();
            newer.setAutoCommit(false);
            fences.check(newer, resource, 10);
            Connection older = connect();
            Future<Object> late = threads.submit(() -> inTransaction(older, () -> {
                fences.check(older, resource, 9);
                return null;
            }));
            newer.commit();
            assertThatThrownBy(() -> late.get(60, TimeUnit.SECONDS)).as("row existed before: %s", rowExists)
                    .hasCauseInstanceOf(StaleTokenException.class);
            assertThat(highest(fences, resource)).isEqualTo(10);
        }
    }

    /**
     * A first check of a resource while another transaction's first check of it is not yet committed completes once
     * that one commits, and records the higher token. (That two first checks interleaved statement by statement do not
     * deadlock on MySQL, where a locking read of a missing row takes a gap lock, rests on the check inserting before it
     * reads with a lock: by construction, not staged here.)
     */
    @Test
    void aFirstCheckWhileAnotherFirstCheckIsUncommittedCompletesAfterIt() throws Exception {
        FenceTable fences = fenceTable();
        Connection first = connect();
        first.setAutoCommit(false);
        fences.check(first, "new-resource", 5);
        Connection second = connect();
        Future<Object> other = threads.submit(() -> inTransaction(second, () -> {
            fences.check(second, "new-resource", 6);
            return null;
        }));
        first.commit();
        other.get(60, TimeUnit.SECONDS);
        assertThat(highest(fences, "new-resource")).isEqualTo(6);
    }

    @Test
    void theFenceTableRunsOnlyInsideATransactionAndRefusesBadResources() throws Exception {
        FenceTable fences = fenceTable();
        Connection connection = connect();
        assertThatThrownBy(() -> fences.check(connection, "order-1", 1)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("auto-commit");
        connection.setAutoCommit(false);
        assertThatThrownBy(() -> fences.check(connection, " ", 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> fences.check(connection, "x".repeat(FenceTable.MAX_RESOURCE_LENGTH + 1), 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> fences.check(connection, "order-1", 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> FenceTable.named("fences x")).isInstanceOf(IllegalArgumentException.class);
        connection.rollback();
    }
}
