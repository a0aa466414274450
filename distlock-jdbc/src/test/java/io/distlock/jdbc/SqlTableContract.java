package io.distlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockException;
import java.sql.SQLException;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The lock table a client is given: one a DBA made from {@link JdbcLockClient#ddl}, one missing, and one
 * made by hand whose lock_key is not unique (where two clients could both insert a row for one name and
 * both hold it).
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

    /** Creates {@code table} by running {@link JdbcLockClient#ddl} as a DBA would, with {@code replace} replaced in it. */
    private void createFromDdl(String table, String... replace) throws SQLException {
        String ddl = JdbcLockClient.ddl(database().kind(), table);
        for (int i = 0; i < replace.length; i += 2) {
            ddl = ddl.replace(replace[i], replace[i + 1]);
        }
        database().execute(List.of(ddl.strip().replaceAll(";$", "").split(";\n")));
    }
}
