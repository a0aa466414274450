package io.distlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.BackendUnavailableException;
import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.servers.Await;
import io.distlock.servers.TcpProxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * What a client costs the database: how often its waiters ask (counted by a proxy in front of it), and
 * how many connections it holds at most (counted on the server, the LISTEN connection included), also
 * under contention.
 */
abstract class SqlClientContract extends SqlTableContract {
    /** The release poll of the clients here: short, so that a poller that wants a connection of its own asks for it soon. */
    private static final Duration RELEASE_POLL = Duration.ofMillis(20);

    @Test
    void waitersOfOneClientAskTheDatabaseAtMostOncePerReleasePollTogether() throws Exception {
        String user = newUser();
        database().urlAs(user);
        Duration releasePoll = Duration.ofMillis(200);
        try (TcpProxy proxy = TcpProxy.to(database().port())) {
            // the waiters' client behind a proxy that counts its round trips; the engine's own fallback poll off
            LockClient client = closeAfterTest(JdbcLockClient.builder().jdbcUrl(database().urlFor(user, proxy.port()))
                    .fallbackPoll(NO_POLLING).releasePoll(releasePoll).build());
            // what one query like a poll costs this driver in round trips (H2 prepares and executes apart), asked
            // before anyone waits (no poll runs) and on a connection the client has open already
            assertThat(client.getLock(uniqueName()).isLocked()).isFalse();
            long beforeQuery = proxy.roundTrips();
            assertThat(client.getLock(uniqueName()).isLocked()).isFalse();
            long perQuery = proxy.roundTrips() - beforeQuery;

            LockClient holders = newClient();
            List<Lease> held = new ArrayList<>();
            List<Future<Optional<Lease>>> waiters = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                String name = uniqueName();
                held.add(holders.getLock(name, lease(longLease(), false)).acquire());
                waiters.add(queuedWaiter(client.getLock(name), SOON));
            }
            long before = proxy.roundTrips();
            long start = System.nanoTime();
            // while they wait, another client takes and releases other locks 30 times (several release polls: the bound
            // below grows with the time they take; 100 took a minute on H2 without showing more)
            LockClient other = newClient();
            for (int i = 0; i < 30; i++) {
                other.getLock(uniqueName()).acquire().close();
            }
            long calls = proxy.roundTrips() - before;
            long elapsed = System.nanoTime() - start;
            // one poll for all five per interval: the interval starts at 5 ms and doubles to the release poll
            // (6 polls), then at most one per 0.8 release polls (its jitter); PostgreSQL listens and asks nothing
            long polls = 6 + 1 + elapsed / (releasePoll.toNanos() * 8 / 10);
            assertThat(calls).as("round trips of a client with 5 waiters in %d ms (%d per query)", elapsed / 1_000_000, perQuery)
                    .isLessThanOrEqualTo(polls * perQuery);
            for (int i = 0; i < held.size(); i++) {
                held.get(i).close();
                Optional<Lease> acquired = waiters.get(i).get(SOON.toSeconds() + 10, TimeUnit.SECONDS);
                assertThat(acquired).as("waiter %d once its lock is released", i).isPresent();
                acquired.get().close();
            }
        }
    }

    @Test
    void aClientNeverHasMoreSessionsOpenThanItsConnectionsEvenWithEveryStatementHeldUp() throws Exception {
        for (int connections : new int[] {1, 2}) {
            assertAtMostThisManySessions(connections, url -> JdbcLockClient.builder().jdbcUrl(url).connections(connections)
                    .operationTimeout(SOON).releasePoll(RELEASE_POLL).build());
        }
    }

    @Test
    void aClientCreatedOnADataSourceUsesAtMostFourOfItsConnections() throws Exception {
        assertAtMostThisManySessions(4, url -> JdbcLockClient.create(dataSource(url, "ApplicationDataSource", connection -> { })));
    }

    /**
     * Drives a client to the most connections it could want at once, and counts its sessions on the server
     * (it has a login of its own) all the while: a waiter keeps its release watch busy (the LISTEN
     * connection, or the release poll), and more acquisitions than it has connections are each held up on
     * the server by a row lock of the test's own, so every statement connection stays in use. Once all of
     * them wait, the count is sampled for 25 release polls more (a poller that opens a connection of its own
     * does so within one), then the row locks go and every acquisition must succeed.
     */
    private void assertAtMostThisManySessions(int connections, Function<String, LockClient> clients) throws Exception {
        String user = newUser();
        LockClient client = closeAfterTest(clients.apply(database().urlAs(user)));
        AtomicLong most = new AtomicLong();
        Runnable sample = () -> most.accumulateAndGet(sessionsOf(user), Math::max);

        String watched = uniqueName();
        Lease held = newClient().getLock(watched, lease(longLease(), false)).acquire();
        Future<Optional<Lease>> waiter = queuedWaiter(client.getLock(watched), Duration.ofMinutes(2));
        sample.run();

        List<String> names = new ArrayList<>();
        for (int i = 0; i <= connections; i++) {
            names.add(uniqueName());
            client.getLock(names.get(i)).acquire().close(); // each lock's row exists, free
        }
        List<Future<Optional<Lease>>> acquisitions = new ArrayList<>();
        try (Connection rowLocks = database().connect()) {
            rowLocks.setAutoCommit(false);
            try (PreparedStatement lockRows = rowLocks.prepareStatement("SELECT lock_key FROM distlock_locks WHERE lock_key IN ("
                    + String.join(", ", Collections.nCopies(names.size(), "?")) + ") FOR UPDATE")) {
                for (int i = 0; i < names.size(); i++) {
                    lockRows.setBytes(i + 1, LockTable.key(names.get(i)));
                }
                lockRows.executeQuery().close();
            }
            // on PostgreSQL one of the connections listens (none with a single one), elsewhere all run statements
            int statementConnections = database().kind() == Database.POSTGRESQL && connections > 1 ? connections - 1 : connections;
            for (String name : names) {
                acquisitions.add(inBackground(() -> client.getLock(name).tryAcquire(SOON)));
                // one at a time, each once the last is held up: acquisitions queued at once would go in one combined statement
                int heldUp = Math.min(acquisitions.size(), statementConnections);
                Await.until(SOON, heldUp + " statement connections of the client wait for a row lock", () -> {
                    sample.run();
                    return blockedSessionsOf(user) >= heldUp || most.get() > connections;
                });
            }
            Await.until(SOON, "every statement connection of the client waits for a row lock", () -> {
                sample.run();
                return blockedSessionsOf(user) >= statementConnections || most.get() > connections;
            });
            long end = System.nanoTime() + RELEASE_POLL.multipliedBy(25).toNanos();
            while (System.nanoTime() - end < 0 && most.get() <= connections) {
                sample.run();
            }
            rowLocks.rollback();
        }
        for (Future<Optional<Lease>> acquisition : acquisitions) {
            assertGrantedOrTimedOut(acquisition, "an acquisition held up by a row lock, once the row lock is gone");
            sample.run();
        }
        held.close();
        assertGrantedOrTimedOut(waiter, "the waiter, once the lock it waits for is released");
        sample.run();
        assertThat(most.get()).as("the most sessions the client (%d connections) had open on the server at once", connections)
                .isBetween(1L, (long) connections);
    }

    /**
     * Asserts that an acquisition got its lock, or that its statement was held up past the client's
     * operation timeout and it said so (the default 3 s of {@link JdbcLockClient#create} can pass while the
     * test holds the row locks on a slow machine): it never hangs and never fails otherwise.
     */
    private static void assertGrantedOrTimedOut(Future<Optional<Lease>> acquisition, String what) throws Exception {
        try {
            Optional<Lease> lease = acquisition.get(SOON.toSeconds() + 10, TimeUnit.SECONDS);
            assertThat(lease).as(what).isPresent();
            lease.get().close();
        } catch (ExecutionException e) {
            assertThat(e.getCause()).as(what).isInstanceOf(BackendUnavailableException.class).hasMessageContaining("got no answer");
        }
    }
}
