package io.distlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockClients;
import io.distlock.OpenOptions;
import io.distlock.spi.LockBackendProvider;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What removing a SQL namespace drops (its lock table and queue table) and what it leaves: the application's tables and
 * their rows, tables whose names merely start with the namespace's, the default table, another namespace's tables and
 * held locks, and a table the namespace names that is not distlock's. The provider contract removes a namespace too;
 * this looks at the tables themselves.
 */
abstract class SqlNamespaceRemovalContract extends SqlContractSupport {
    private final LockBackendProvider provider = LockClients.provider("jdbc");

    private long remove(String namespace) {
        return provider.removeNamespace(database().target(), OpenOptions.defaults().namespace(namespace));
    }

    private LockClient clientOf(String namespace) {
        return closeAfterTest(LockClients.open(database().target(), OpenOptions.defaults().namespace(namespace)));
    }

    @Test
    void removingANamespaceDropsItsTwoTablesAndNothingElse() throws Exception {
        String suffix = Long.toString(System.nanoTime(), 36);
        String application = "app_orders_" + suffix;
        String gone = "gone_" + suffix;
        String lookalike = gone + "_archive"; // starts with the namespace's name
        String kept = "kept_" + suffix;
        database().execute(List.of("CREATE TABLE " + application + " (id INT PRIMARY KEY, item VARCHAR(20))",
                "INSERT INTO " + application + " VALUES (1, 'lamp')", "INSERT INTO " + application + " VALUES (2, 'desk')",
                "CREATE TABLE " + lookalike + " (id INT)", "INSERT INTO " + lookalike + " VALUES (7)"));
        newClient().getLock("default-namespace").acquire(SOON).close(); // the default table exists, with a row
        long defaultRows = rows(LockTable.DEFAULT_NAME);

        LockClient keeper = clientOf(kept);
        Lease keptLock = keeper.getLock("order-1").acquire(SOON);
        Lease keptFair = keeper.getFairLock("order-1").acquire(SOON);
        LockClient leaving = clientOf(database().schema() + "." + gone); // schema-qualified, as open takes it
        leaving.getLock("order-1").acquire(SOON).close();
        leaving.getFairLock("order-1").acquire(SOON).close();
        leaving.getSemaphore("order-1", 2).acquire(SOON).close();
        leaving.close();
        assertThat(rows(gone)).isOne();
        assertThat(rows(gone + "_queue")).isPositive();

        assertThat(remove(database().schema() + "." + gone)).as("the lock table and the queue table").isEqualTo(2);
        assertThat(exists(gone)).as("table %s", gone).isFalse();
        assertThat(exists(gone + "_queue")).as("table %s_queue", gone).isFalse();
        assertThat(remove(gone)).as("removed again: nothing is left").isZero();

        assertThat(rows(application)).as("the application's table").isEqualTo(2);
        assertThat(rows(lookalike)).as("a table whose name starts with the namespace's").isOne();
        assertThat(rows(LockTable.DEFAULT_NAME)).as("the default table").isEqualTo(defaultRows);
        assertThat(keptLock.isValid()).isTrue();
        assertThat(keptFair.isValid()).isTrue();
        LockClient other = clientOf(kept);
        assertThat(other.getLock("order-1").tryAcquire(Duration.ZERO)).as("the other namespace's lock, still held").isEmpty();
        assertThat(other.getFairLock("order-1").tryAcquire(Duration.ZERO)).as("its fair lock, still held").isEmpty();
        keptLock.close();
        keptFair.close();
        assertThat(rows(kept)).isOne();
    }

    @Test
    void aNamespaceThatIsAnotherNamespacesQueueTableKeepsThatTable() throws Exception {
        String pair = "pair_" + Long.toString(System.nanoTime(), 36);
        LockClient neighbour = clientOf(pair + "_queue"); // its lock table is the name of the queue table of namespace pair
        Lease held = neighbour.getLock("order-1").acquire(SOON);
        clientOf(pair).getLock("order-1").acquire(SOON).close(); // plain locks work; its queue table is the neighbour's lock table
        assertThat(remove(pair)).as("only the lock table of %s", pair).isOne();
        assertThat(exists(pair)).isFalse();
        assertThat(rows(pair + "_queue")).as("the neighbour's lock table").isOne();
        assertThat(clientOf(pair + "_queue").getLock("order-1").tryAcquire(Duration.ZERO)).as("the neighbour's lock, still held").isEmpty();
        held.close();
    }

    @Test
    void aNamespaceNamingAnApplicationTableIsRefusedAndNothingIsDropped() throws Exception {
        String application = "app_items_" + Long.toString(System.nanoTime(), 36);
        database().execute(List.of("CREATE TABLE " + application + " (lock_key INT PRIMARY KEY, owner VARCHAR(20))",
                "INSERT INTO " + application + " VALUES (1, 'someone')"));
        assertThatThrownBy(() -> remove(application)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("table " + application).hasMessageContaining("not a distlock lock table")
                .hasMessageContaining("nothing was removed");
        assertThat(rows(application)).isOne();
        for (String name : List.of(application + "; DROP TABLE " + application, application + " --", "a.b.c", "\"" + application + "\"")) {
            assertThatThrownBy(() -> remove(name)).as("namespace %s", name).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("[schema.]table");
        }
        for (String name : List.of(LockTable.DEFAULT_NAME, database().schema() + "." + LockTable.DEFAULT_NAME.toUpperCase())) {
            assertThatThrownBy(() -> remove(name)).as("namespace %s", name).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("the application's");
        }
        assertThatThrownBy(() -> provider.removeNamespace(database().target(), OpenOptions.defaults()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("the application's");
        assertThat(rows(application)).isOne();
    }

    private long rows(String table) throws SQLException {
        try (Connection connection = database().connect(); Statement statement = connection.createStatement();
                ResultSet count = statement.executeQuery("SELECT COUNT(*) FROM " + table)) {
            count.next();
            return count.getLong(1);
        }
    }

    private boolean exists(String table) throws SQLException {
        try {
            rows(table);
            return true;
        } catch (SQLException e) {
            return false;
        }
    }
}
