package io.distlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.DistributedLock;
import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockException;
import io.distlock.LockListener;
import io.distlock.servers.Await;
import io.distlock.servers.TcpProxy;
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
import org.junit.jupiter.api.Tag;
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
    @Tag(io.distlock.testkit.BackendContract.RESTART)
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

    /**
     * A grant reserves a range only while other threads of the client wait at the gate: alone, an acquire takes one token;
     * with two waiting, the one the server grants next reserves its handoffs' tokens, and the next holder elsewhere gets a
     * token above them.
     */
    @Test
    void aGrantForLocalHandoffsReservesTheirTokensSoTheNextHolderElsewhereGetsALargerOne() throws Exception {
        String name = uniqueName();
        io.distlock.LockOptions cohort = io.distlock.LockOptions.builder().localHandoffs(4).build();
        LockClient client = newClient();
        long first;
        try (Lease lease = client.getLock(name, cohort).acquire()) { // a name never locked: the row is inserted
            first = lease.fencingToken();
        }
        DistributedLock lock = client.getLock(name, cohort);
        java.util.List<Thread> waiting = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.util.List<java.util.concurrent.Future<Long>> waiters = new java.util.ArrayList<>();
        long alone;
        try (Lease lease = lock.acquire()) { // the row taken from free
            alone = lease.fencingToken();
            for (int t = 0; t < 2; t++) {
                waiters.add(inBackground(() -> {
                    waiting.add(Thread.currentThread());
                    try (Lease next = lock.acquire()) {
                        return next.fencingToken();
                    }
                }));
            }
            Await.until(SOON, "both threads wait at the gate", () -> waiting.size() == 2
                    && waiting.stream().allMatch(w -> w.getState() == Thread.State.WAITING || w.getState() == Thread.State.TIMED_WAITING));
        }
        assertThat(alone).as("nobody waited for the first grant: one token, no range").isEqualTo(first + 1);
        long granted = Math.min(waiters.get(0).get(SOON.toSeconds(), java.util.concurrent.TimeUnit.SECONDS),
                waiters.get(1).get(SOON.toSeconds(), java.util.concurrent.TimeUnit.SECONDS));
        assertThat(granted).as("nobody waited for the second grant either").isEqualTo(alone + 1);
        try (Lease elsewhere = newClient().getLock(name).acquire()) {
            assertThat(elsewhere.fencingToken()).as("above the 5 tokens the grant with a thread waiting reserved")
                    .isGreaterThanOrEqualTo(granted + 5);
        }
    }

    @Test
    void threadsOfTwoClientsHandingOnLocallyStayExclusiveWithTokensIncreasingInHoldOrder() throws Exception {
        String name = uniqueName();
        io.distlock.LockOptions cohort = io.distlock.LockOptions.builder().localHandoffs(4).build();
        List<Long> tokens = java.util.Collections.synchronizedList(new ArrayList<>()); // appended while holding: the order of holds
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newCachedThreadPool();
        try {
            List<Future<?>> done = new ArrayList<>();
            for (LockClient client : List.of(newClient(), newClient())) {
                DistributedLock lock = client.getLock(name, cohort);
                for (int t = 0; t < 3; t++) {
                    done.add(threads.submit(() -> {
                        for (int i = 0; i < 40; i++) {
                            try (Lease lease = lock.acquire()) {
                                if (inside.incrementAndGet() != 1) {
                                    overlaps.incrementAndGet();
                                }
                                tokens.add(lease.fencingToken());
                                inside.decrementAndGet();
                            }
                        }
                        return null;
                    }));
                }
            }
            for (Future<?> f : done) {
                f.get(120, TimeUnit.SECONDS);
            }
        } finally {
            threads.shutdownNow();
        }
        assertThat(overlaps).hasValue(0);
        assertThat(tokens).hasSize(2 * 3 * 40);
        long handedOn = 0;
        for (int i = 1; i < tokens.size(); i++) {
            assertThat(tokens.get(i)).as("hold %d's token after %d", i, tokens.get(i - 1)).isGreaterThan(tokens.get(i - 1));
            if (tokens.get(i) == tokens.get(i - 1) + 1) {
                handedOn++; // a server grant is at least 5 above the last grant: +1 is a local handoff
            }
        }
        assertThat(handedOn).as("holds that took the next token of the range: handed on without the database").isPositive();
        assertUnlocked(name);
    }

    @Test
    void theWatchdogRenewsManyLeasesInFewRoundTrips() throws Exception {
        int locks = 300;
        Duration leaseTime = Duration.ofMillis(1200);
        String user = newUser();
        database().urlAs(user);
        try (TcpProxy proxy = TcpProxy.to(database().port())) {
            LockClient client = closeAfterTest(JdbcLockClient.builder().jdbcUrl(database().urlFor(user, proxy.port())).build());
            List<Lease> leases = new ArrayList<>();
            List<String> names = new ArrayList<>();
            for (int i = 0; i < locks; i++) {
                names.add(uniqueName());
                leases.add(client.getLock(names.get(i), lease(leaseTime, true)).acquire(SOON));
            }
            long before = proxy.roundTrips();
            long start = System.nanoTime();
            Await.until(SOON, "three lease times have passed", () -> System.nanoTime() - start > leaseTime.multipliedBy(3).toNanos());
            long calls = proxy.roundTrips() - before;
            for (int i = 0; i < locks; i++) {
                assertThat(leases.get(i).isValid()).as("lease %d still valid", i).isTrue();
                assertLocked(names.get(i));
            }
            // one UPDATE per lock per interval would be about 9 x 300 = 2,700 round trips (twice that where the driver
            // prepares apart); batches of up to 500 need a few dozen
            assertThat(calls).as("round trips while the leases were renewed").isLessThan(locks);
            leases.forEach(Lease::close);
        }
    }

    @Test
    void aBatchedRenewalTellsEachLockWhatItFound() throws Exception {
        LockClient client = newClient();
        List<Lease> leases = new ArrayList<>();
        List<CountDownLatch> lost = new ArrayList<>();
        List<String> names = new ArrayList<>();
        for (int i = 0; i < 20; i++) { // acquired within a few ms: renewed in the same batches
            names.add(uniqueName());
            Lease lease = client.getLock(names.get(i), lease(Duration.ofMillis(1200), true)).acquire(SOON);
            CountDownLatch loss = new CountDownLatch(1);
            lease.onLost(e -> {
                if (e.reason() == io.distlock.LeaseLostException.Reason.FORCE_UNLOCKED) {
                    loss.countDown();
                }
            });
            leases.add(lease);
            lost.add(loss);
        }
        assertThat(newClient().getLock(names.get(7)).forceUnlock()).isTrue(); // an operator ends one of them
        assertThat(lost.get(7).await(30, TimeUnit.SECONDS)).as("the force-unlocked lock is told so").isTrue();
        long start = System.nanoTime();
        Await.until(SOON, "two more lease times have passed", () -> System.nanoTime() - start > Duration.ofMillis(2400).toNanos());
        for (int i = 0; i < leases.size(); i++) {
            if (i != 7) {
                assertThat(leases.get(i).isValid()).as("lock %d still valid", i).isTrue();
                assertLocked(names.get(i));
            }
        }
        assertThat(leases.get(7).isValid()).isFalse();
        leases.forEach(Lease::close);
    }
}
