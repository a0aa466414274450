package io.distlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.servers.Await;
import io.distlock.servers.TcpProxy;
import io.distlock.testkit.ContractSupport;
import io.distlock.testkit.BackendHooks;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * PostgreSQL's wake-ups by LISTEN/NOTIFY: that they are what wakes a waiter (not a poll that passes for
 * them), that a waiter costs no statement while it waits, and that a LISTEN connection that is down
 * does not hold a {@code tryAcquire} past its wait.
 */
class PostgresListenTest extends ContractSupport {
    @RegisterExtension
    static final PostgresExtension database = new PostgresExtension();

    @Override
    protected BackendHooks hooks() {
        return new SqlHooks(database);
    }

    @Test
    void aWaiterIsWokenByTheNotificationWithEveryPollOffAndMakesNoCallWhileItWaits() throws Exception {
        String user = newUser();
        database.urlAs(user);
        try (TcpProxy proxy = TcpProxy.to(database.port())) {
            // the waiter's client, behind a proxy that counts its round trips; neither the engine's fallback
            // poll nor the release poll (were the client to poll instead of listening) would ask within the test
            LockClient client = closeAfterTest(JdbcLockClient.builder().jdbcUrl(database.urlFor(user, proxy.port()))
                    .fallbackPoll(NO_POLLING).releasePoll(NO_POLLING).build());
            String name = uniqueName();
            Lease held = newClient().getLock(name, lease(Duration.ofMinutes(2), false)).acquire();
            Future<Optional<Lease>> waiter = queuedWaiter(client.getLock(name), SOON);
            assertThat(listeningSessionsOf(user)).as("sessions of the waiter's client that LISTEN").isEqualTo(1);

            long before = proxy.roundTrips();
            // meanwhile another client takes and releases other locks 100 times: each release notifies the channel the waiter listens on
            LockClient other = newClient();
            for (int i = 0; i < 100; i++) {
                other.getLock(uniqueName()).acquire().close();
            }
            assertThat(proxy.roundTrips() - before).as("round trips of the waiting client while 100 other locks came and went").isZero();

            held.close();
            Optional<Lease> acquired = waiter.get(SOON.toSeconds() + 10, TimeUnit.SECONDS);
            assertThat(acquired).as("the waiter, with every poll off, woken by the release's notification").isPresent();
            assertThat(proxy.roundTrips() - before).as("round trips of the waiter to take the lock once woken").isBetween(1L, 2L);
            acquired.get().close();
        }
    }

    @Test
    void tryAcquireReturnsWhenItsWaitEndsWhileTheListenConnectionCannotReconnect() throws Exception {
        String user = newUser();
        Duration timeout = Duration.ofSeconds(10);
        // two connections: one for LISTEN, one for every statement (so no statement needs a new connection below)
        LockClient client = closeAfterTest(JdbcLockClient.builder().jdbcUrl(database.urlAs(user)).connections(2).operationTimeout(timeout).build());
        LockClient holders = newClient();
        String waitedFor = uniqueName();
        String tried = uniqueName();
        Lease heldWaitedFor = holders.getLock(waitedFor, lease(Duration.ofMinutes(2), false)).acquire();
        Lease heldTried = holders.getLock(tried, lease(Duration.ofMinutes(2), false)).acquire();
        Future<Optional<Lease>> waiter = queuedWaiter(client.getLock(waitedFor), Duration.ofMinutes(2)); // the client listens now

        try (Connection admin = admin()) {
            long listener = listeningSessionOf(admin, user);
            execute(admin, "ALTER DATABASE postgres ALLOW_CONNECTIONS false"); // no new session gets in: the listener cannot reconnect
            try {
                execute(admin, "SELECT pg_terminate_backend(" + listener + ")");
                Await.until(SOON, "the client's LISTEN session is gone", () -> listeningSessionsOf(user) == 0);

                Duration wait = Duration.ofMillis(300);
                Future<Optional<Lease>> attempt = inBackground(() -> client.getLock(tried).tryAcquire(wait));
                // Its statements answer in milliseconds here (the client's statement connection is up): only waiting for the
                // notifications to start could hold the call past its wait. Half an operation timeout beyond the wait is far
                // more than the call needs on any machine, and far less than the operation timeout a wait for the LISTEN
                // connection would cost. A correctness bound, not a benchmark.
                assertThat(attempt).as("tryAcquire(%s) with the LISTEN connection down", wait).succeedsWithin(wait.plus(timeout.dividedBy(2)))
                        .isEqualTo(Optional.empty());
            } finally {
                execute(admin, "ALTER DATABASE postgres ALLOW_CONNECTIONS true");
            }
        }
        heldTried.close();
        assertThat(client.getLock(tried).tryAcquire(SOON)).as("the lock the attempt timed out on, once free").isPresent();
        Await.until(SOON, "the client listens again", () -> listeningSessionsOf(user) == 1);
        heldWaitedFor.close();
        assertThat(waiter.get(SOON.toSeconds() + 10, TimeUnit.SECONDS)).as("the waiter that waited through the outage").isPresent();
    }

    private static String newUser() {
        return SqlContractSupport.newUser();
    }

    /** Counts the sessions of {@code user} that LISTEN, asked from the template1 database (the test's own may refuse connections). */
    private static long listeningSessionsOf(String user) {
        try (Connection admin = admin(); PreparedStatement statement = admin.prepareStatement(
                "SELECT count(*) FROM pg_stat_activity WHERE usename = ? AND query LIKE 'LISTEN %'")) {
            statement.setString(1, user);
            try (ResultSet row = statement.executeQuery()) {
                row.next();
                return row.getLong(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Connection admin() throws SQLException {
        return DriverManager.getConnection(database.target().replace("/postgres?", "/template1?"));
    }

    private static long listeningSessionOf(Connection admin, String user) throws SQLException {
        try (PreparedStatement statement = admin.prepareStatement("SELECT pid FROM pg_stat_activity WHERE usename = ? AND query LIKE 'LISTEN %'")) {
            statement.setString(1, user);
            try (ResultSet row = statement.executeQuery()) {
                assertThat(row.next()).as("a LISTEN session of the client").isTrue();
                return row.getLong(1);
            }
        }
    }

    private static void execute(Connection connection, String sql) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }
}
