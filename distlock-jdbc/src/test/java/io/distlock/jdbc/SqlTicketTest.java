package io.distlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockClients;
import io.distlock.OpenOptions;
import io.distlock.spi.AcquireResult;
import io.distlock.spi.QueueingAcquire.QueueTicket;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A waiter's row against the engine's leave, on a real H2 server: a turn check that runs after the leave (it was in
 * flight on another connection when the waiter was interrupted) finds its row gone, and must not join again - that
 * row would stand in the queue, or hold the lock, for a whole lease with nobody behind it.
 */
class SqlTicketTest {
    @RegisterExtension
    static final H2ServerExtension database = new H2ServerExtension();

    private final String table = "tickets_" + UUID.randomUUID().toString().substring(0, 8);
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    private LockClient client;
    private SqlConnections connections;
    private SqlQueue fair;

    @BeforeEach
    void openQueue() throws SQLException {
        client = LockClients.open(database.target(), OpenOptions.defaults().namespace(table)); // creates the tables
        connections = new SqlConnections(ConnectionSource.of(database.target(), null, null), 2, Duration.ofSeconds(5), timer, "ticket-test");
        SqlDialect dialect;
        try (Connection connection = database.connect()) {
            dialect = Database.detect(connection.getMetaData()).dialect(LockTable.named(table));
        }
        fair = new SqlQueue(connections, dialect, null, Duration.ofMillis(50), "test", Duration.ofSeconds(5), "fair", SqlQueue.Rule.EXCLUSIVE, 0);
    }

    @AfterEach
    void close() {
        connections.close();
        client.close();
        timer.shutdownNow();
    }

    @Test
    void aTurnCheckThatRunsAfterTheLeaveDoesNotJoinAgainBehindAHolder() throws Exception {
        try (Lease held = client.getFairLock("contended").acquire()) {
            QueueTicket waiter = fair.enqueue("contended", "waiter-1", Duration.ofSeconds(30)).join();
            assertThat(rowsOf("waiter-1")).as("queued behind the holder").isEqualTo(1);
            waiter.leave().join();
            AcquireResult late = waiter.checkTurn(() -> { }).join();
            assertThat(late.granted()).isFalse();
            assertThat(rowsOf("waiter-1")).as("no row of a waiter that left").isZero();
        }
    }

    @Test
    void aTurnCheckThatRunsAfterTheLeaveOfAFreeLockDoesNotTakeIt() throws Exception {
        try (Lease held = client.getFairLock("freed").acquire()) {
            QueueTicket waiter = fair.enqueue("freed", "waiter-2", Duration.ofSeconds(30)).join();
            waiter.leave().join();
            held.close(); // the lock is free when the late check runs: joining again would hold it at once
            AcquireResult late = waiter.checkTurn(() -> { }).join();
            assertThat(late.granted()).isFalse();
        }
        assertThat(rowsOf("waiter-2")).as("no row of a waiter that left").isZero();
        Optional<Lease> next = client.getFairLock("freed").tryAcquire(Duration.ZERO);
        assertThat(next).as("the lock is free for the next one at once").isPresent();
        next.get().close();
    }

    private long rowsOf(String owner) throws SQLException {
        try (Connection connection = database.connect();
                PreparedStatement count = connection.prepareStatement("SELECT COUNT(*) FROM " + table + "_queue WHERE owner = ? AND ticket > 0")) {
            count.setString(1, owner);
            try (ResultSet row = count.executeQuery()) {
                row.next();
                return row.getLong(1);
            }
        }
    }
}
