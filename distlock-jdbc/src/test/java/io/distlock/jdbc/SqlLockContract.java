package io.distlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.DistributedLock;
import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockException;
import io.distlock.LockListener;
import io.distlock.servers.Await;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * What only a SQL database has (the tiers every backend runs are {@link io.distlock.testkit.BackendContract}'s): the caller's transactions,
 * sessions that get killed, a server restarted under a holder, many clients on one row, and the table.
 */
abstract class SqlLockContract extends SqlClientContract {

    @Test
    void theLockCommitsOnItsOwnEvenWhenTheDataSourceHandsOutTransactionalConnections() throws Exception {
        String name = uniqueName();
        // a pool configured with autoCommit=false, and a caller whose own transaction then rolls back
        LockClient client = closeAfterTest(JdbcLockClient.builder().dataSource(nonAutocommitDataSource()).build());
        try (Connection caller = database().connect()) {
            caller.setAutoCommit(false);
            try (Statement statement = caller.createStatement()) {
                statement.execute("CREATE TABLE IF NOT EXISTS caller_work (id INT)");
            }
            Lease lease = client.getLock(name).acquire();
            try (Statement statement = caller.createStatement()) {
                statement.execute("INSERT INTO caller_work VALUES (1)");
            }
            caller.rollback();
            assertLocked(name); // seen from another session: committed, and not undone by the caller's rollback
            assertThat(newClient().getLock(name).tryLock()).isFalse();
            lease.close();
            assertUnlocked(name);
        }
    }

    @Test
    void killedSessionsDoNotLoseALeaseTheWatchdogRenews() throws Exception {
        String name = uniqueName();
        AtomicInteger renewals = new AtomicInteger();
        LockClient client = closeAfterTest(JdbcLockClient.builder().jdbcUrl(database().target()).listener(new LockListener() {
            @Override
            public void renewed(Lease lease) {
                renewals.incrementAndGet();
            }
        }).build());
        DistributedLock holder = client.getLock(name, lease(shortLease().multipliedBy(4), true));
        try (Lease held = holder.acquire()) {
            for (int round = 0; round < 3; round++) {
                killOtherSessions();
                int before = renewals.get();
                // the next renewal falls due on a dead connection and must succeed on a new one
                Await.until(SOON, "a renewal after killing every session of the client, round " + round, () -> renewals.get() > before);
                assertThat(held.isValid()).as("valid after killing every session of the client, round %d", round).isTrue();
                assertLocked(name);
            }
            assertThat(newClient().getLock(name).tryLock()).isFalse();
        }
        assertUnlocked(name);
    }

    @Test
    void aDatabaseRestartedUnderAHolderLeavesItHoldingWithTheSameToken() throws Exception {
        String name = uniqueName();
        DistributedLock holder = newClient().getLock(name, lease(Duration.ofSeconds(30), true));
        Lease held = holder.acquire();
        backend().restart();
        Await.until(SOON, "the database answers again", () -> {
            try (Connection ignored = database().connect()) {
                return true;
            } catch (SQLException e) {
                return false;
            }
        });
        assertThat(held.isValid()).isTrue();
        assertLocked(name);
        DistributedLock other = newClient().getLock(name);
        assertThat(other.tryLock()).as("another client after the restart").isFalse();
        assertThat(lastTokenInBackend(name)).hasValue(held.fencingToken());
        held.close(); // the released row is on disk: no exception
        assertUnlocked(name);
        try (Lease next = other.acquire(Duration.ofSeconds(5))) {
            assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
        }
    }

    @Test
    void aHundredClientsWaitingOnOneNameEachGetItOnceInTurn() throws Exception {
        String name = uniqueName();
        int clients = 100;
        List<DistributedLock> locks = new ArrayList<>();
        for (int i = 0; i < clients; i++) {
            // two connections each: on PostgreSQL one runs statements and one listens (with one, waiters would poll)
            LockClient client = JdbcLockClient.builder().jdbcUrl(database().target()).connections(2).build();
            closeAfterTest(client);
            locks.add(client.getLock(name));
        }
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        ConcurrentLinkedQueue<Long> tokens = new ConcurrentLinkedQueue<>();
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Boolean>> results = new ArrayList<>();
        for (DistributedLock lock : locks) {
            results.add(inBackground(() -> {
                start.await();
                Optional<Lease> lease = lock.tryAcquire(Duration.ofSeconds(120));
                if (lease.isEmpty()) {
                    return false;
                }
                try (Lease held = lease.get()) {
                    if (inside.incrementAndGet() > 1) {
                        overlaps.incrementAndGet();
                    }
                    tokens.add(held.fencingToken());
                    Thread.sleep(2);
                    inside.decrementAndGet();
                }
                return true;
            }));
        }
        start.countDown();
        for (Future<Boolean> result : results) {
            assertThat(result.get(180, TimeUnit.SECONDS)).as("every waiter got the lock").isTrue();
        }
        assertThat(overlaps).as("two holders at once").hasValue(0);
        assertThat(new ArrayList<>(tokens)).hasSize(clients).doesNotHaveDuplicates().isSorted();
    }

    @Test
    void badSettingsAreRejectedNamingTheSetting() {
        assertThatThrownBy(() -> JdbcLockClient.builder().jdbcUrl("postgres://x")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("jdbcUrl");
        assertThatThrownBy(() -> JdbcLockClient.builder().table("locks; DROP TABLE x")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("table");
        assertThatThrownBy(() -> JdbcLockClient.builder().connections(0)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("connections");
        assertThatThrownBy(() -> JdbcLockClient.builder().releasePoll(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("releasePoll");
        assertThatThrownBy(() -> JdbcLockClient.builder().build()).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("jdbcUrl");
    }

    private void killOtherSessions() throws SQLException {
        try (Connection connection = database().connect()) {
            List<Long> sessions = new ArrayList<>();
            try (Statement statement = connection.createStatement(); ResultSet rows = statement.executeQuery(database().otherSessions())) {
                while (rows.next()) {
                    sessions.add(rows.getLong(1));
                }
            }
            assertThat(sessions).as("sessions of the clients").isNotEmpty();
            for (long session : sessions) {
                try (PreparedStatement kill = connection.prepareStatement(database().killSession())) {
                    kill.setLong(1, session);
                    kill.execute();
                } catch (SQLException gone) {
                    // ended between the list and the kill
                }
            }
        }
    }

    /** A DataSource whose connections start in a transaction, as a pool configured with autoCommit=false hands them out. */
    private DataSource nonAutocommitDataSource() {
        return dataSource(database().target(), "NonAutocommitDataSource", connection -> connection.setAutoCommit(false));
    }
}
