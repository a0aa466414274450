package io.distlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The lock table a client is given: one a DBA made from {@link JdbcLockClient#ddl}, one missing, and one
 * made by hand whose lock_key is not unique (where two clients could both insert a row for one name and
 * both hold it); and a queue table made by hand without its key (lock_key, ticket).
 */
abstract class SqlTableContract extends SqlServerContract {

    @Test
    void aTableMadeFromTheDdlServesLocksWithCreateTableOff() throws Exception {
        String table = database().schema() + ".dba_locks_" + Long.toString(System.nanoTime(), 36);
        createFromDdl(table);
        LockClient client = closeAfterTest(JdbcLockClient.builder().jdbcUrl(database().target()).table(table).createTable(false).build());
        LockClient other = closeAfterTest(JdbcLockClient.builder().jdbcUrl(database().target()).table(table).createTable(false).build());
        String name = uniqueName();
        try (Lease lease = client.getLock(name).acquire()) {
            assertThat(lease.fencingToken()).isEqualTo(1);
            assertThat(other.getLock(name).tryLock()).as("another client on the same table while the lock is held").isFalse();
        }
        try (Lease next = other.getLock(name).acquire()) {
            assertThat(next.fencingToken()).isEqualTo(2);
        }
    }

    @Test
    void aMissingTableIsReportedWithItsDdlWhenCreatingItIsOff() {
        assertThatThrownBy(() -> JdbcLockClient.builder().jdbcUrl(database().target()).table("no_such_locks").createTable(false).build())
                .isInstanceOf(LockException.class)
                .hasMessageContaining("no_such_locks")
                .hasMessageContaining("CREATE TABLE IF NOT EXISTS no_such_locks");
    }

    @Test
    void aTableWhoseLockKeyIsNotUniqueIsRefusedNamingTheTableAndTheFix() throws Exception {
        String suffix = Long.toString(System.nanoTime(), 36);
        String noKey = "nokey_locks_" + suffix;
        createFromDdl(noKey, " PRIMARY KEY,", ",");
        String widerKey = "widekey_locks_" + suffix; // unique on (lock_key, fence): many rows per lock_key
        createFromDdl(widerKey, " PRIMARY KEY,", ",");
        database().execute(List.of("CREATE UNIQUE INDEX " + widerKey + "_key ON " + widerKey + " (lock_key, fence)"));
        for (String table : List.of(noKey, widerKey)) {
            for (boolean createTable : new boolean[] {true, false}) {
                assertThatThrownBy(() -> JdbcLockClient.builder().jdbcUrl(database().target()).table(table).createTable(createTable).build())
                        .as("a client on table %s (createTable %s)", table, createTable)
                        .isInstanceOf(LockException.class)
                        .hasMessageContaining("table " + table)
                        .hasMessageContaining("two clients could both hold one lock")
                        .hasMessageContaining("ALTER TABLE " + table + " ADD PRIMARY KEY (lock_key)")
                        .hasMessageContaining("CREATE TABLE IF NOT EXISTS " + table);
            }
        }
    }

    @Test
    void aTableWithAUniqueIndexOnLockKeyInsteadOfAPrimaryKeyIsAccepted() throws Exception {
        String table = "unique_locks_" + Long.toString(System.nanoTime(), 36);
        createFromDdl(table, " PRIMARY KEY,", ",");
        database().execute(List.of("CREATE UNIQUE INDEX " + table + "_key ON " + table + " (lock_key)"));
        LockClient client = closeAfterTest(JdbcLockClient.builder().jdbcUrl(database().target()).table(table).createTable(false).build());
        try (Lease lease = client.getLock(uniqueName()).acquire()) {
            assertThat(lease.fencingToken()).isEqualTo(1);
        }
    }

    /**
     * Guard: a queue table made by hand without a unique (lock_key, ticket), or unique only on more columns, is refused when
     * the client opens, whether it may create tables or not, naming the table, the key and the DDL, with nothing written;
     * a unique index on exactly those columns instead of the primary key is accepted, and so is the client's own table.
     * Without the key, two first fair, read-write or semaphore acquires of a name would both hold it.
     */
    @Test
    void aQueueTableWithoutItsKeyIsRefusedWhenTheClientOpens() throws Exception {
        String suffix = Long.toString(System.nanoTime(), 36);
        String noKey = "nokeyq_locks_" + suffix;
        createFromDdl(noKey, "PRIMARY KEY (lock_key, ticket)", "CHECK (ticket >= 0)");
        String widerKey = "widekeyq_locks_" + suffix;
        createFromDdl(widerKey, "PRIMARY KEY (lock_key, ticket)", "CHECK (ticket >= 0)");
        database().execute(List.of("CREATE UNIQUE INDEX " + widerKey + "_qkey ON " + widerKey + "_queue (lock_key, ticket, lock_role)"));
        for (String table : List.of(noKey, widerKey)) {
            for (boolean createTable : new boolean[] {true, false}) {
                assertThatThrownBy(() -> JdbcLockClient.builder().jdbcUrl(database().target()).table(table).createTable(createTable).build())
                        .as("a client on table %s (createTable %s)", table, createTable)
                        .isInstanceOf(LockException.class)
                        .hasMessageContaining("queue table " + table + "_queue has no PRIMARY KEY or UNIQUE constraint on (lock_key, ticket)")
                        .hasMessageContaining("two clients could both hold one fair lock")
                        .hasMessageContaining("ALTER TABLE " + table + "_queue ADD PRIMARY KEY (lock_key, ticket)")
                        .hasMessageContaining("CREATE TABLE IF NOT EXISTS " + table + "_queue");
            }
            assertThat(rows(table) + rows(table + "_queue")).as("rows written in %s and its queue table", table).isZero();
        }
        database().execute(List.of("CREATE UNIQUE INDEX " + noKey + "_qkey ON " + noKey + "_queue (lock_key, ticket)"));
        String own = "ownq_locks_" + suffix;
        for (String table : List.of(noKey, own)) {
            LockClient client = closeAfterTest(JdbcLockClient.builder().jdbcUrl(database().target()).table(table).build());
            try (Lease fair = client.getFairLock("order-1").acquire(SOON); Lease permit = client.getSemaphore("order-1", 2).acquire(SOON)) {
                assertThat(fair.fencingToken()).as("a fair lock on table %s", table).isPositive();
                assertThat(permit.isValid()).isTrue();
            }
        }
    }

    private long rows(String table) throws SQLException {
        try (Connection connection = database().connect(); Statement statement = connection.createStatement();
                ResultSet count = statement.executeQuery("SELECT COUNT(*) FROM " + table)) {
            count.next();
            return count.getLong(1);
        }
    }

    /** Creates {@code table} by running {@link JdbcLockClient#ddl} as a DBA would, with {@code replace} replaced in it. */
    private void createFromDdl(String table, String... replace) throws SQLException {
        String ddl = JdbcLockClient.ddl(database().kind(), table);
        for (int i = 0; i < replace.length; i += 2) {
            ddl = ddl.replace(replace[i], replace[i + 1]);
        }
        database().execute(List.of(ddl.strip().replaceAll(";$", "").split(";\n")));
    }
}
