package io.distlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockKind;
import io.distlock.servers.Await;
import io.distlock.spi.AcquireResult;
import io.distlock.spi.OwnerCheck;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Combined calls ({@link SqlConnections.Combiner}): acquires and releases queued at once run as one statement each
 * (PostgreSQL) or two and one (MariaDB/MySQL). The backend here has one worker, held busy while the requests queue, so
 * that the next drain takes them all. Each test fails without what it names.
 */
abstract class CombinedCallsContract extends SqlContractSupport {
    private static final Duration LEASE = Duration.ofMinutes(1);

    private final List<String> calls = new CopyOnWriteArrayList<>();
    private final List<AutoCloseable> opened = new ArrayList<>();

    @AfterEach
    void resetTheSeamsAndClose() throws Exception {
        SqlConnections.answered = (operation, answer, connection) -> { };
        SqlConnections.heldUp = SqlConnections.HELD_UP;
        for (AutoCloseable closeable : opened) {
            closeable.close();
        }
    }

    /** A backend of the default table with one worker, one connection at a time; its pool, to hold the worker. */
    private record Backend(JdbcLockBackend backend, SqlConnections pool) { }

    private Backend backend(Duration timeout) {
        return backend(timeout, 1, database().target());
    }

    /** A backend with {@code workers} workers, connecting to {@code url} (a login of the test's own: see {@link #newUser()}). */
    private Backend backend(Duration timeout, int workers, String url) {
        newClient(); // creates the table
        ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1);
        SqlConnections pool = new SqlConnections(ConnectionSource.of(url, null, null), workers, timeout, timer, "combined-test");
        SqlDialect dialect = database().kind().dialect(LockTable.named(JdbcLockClient.DEFAULT_TABLE));
        JdbcLockBackend backend = new JdbcLockBackend(pool, dialect, new PollingReleaseWatch(pool, dialect, Duration.ofSeconds(1), "combined-test"),
                timer, "combined-test", timeout, Duration.ofSeconds(1), null);
        opened.add(backend::close);
        return new Backend(backend, pool);
    }

    /** Keeps the one worker busy until the returned latch is counted down; returns once it is. */
    private CountDownLatch holdTheWorker(SqlConnections pool) throws InterruptedException {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch go = new CountDownLatch(1);
        pool.submit("hold", null, connection -> {
            started.countDown();
            try {
                return go.await(SOON.toSeconds(), TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }, null, SOON.plusSeconds(10));
        assertThat(started.await(SOON.toSeconds(), TimeUnit.SECONDS)).as("the worker is held").isTrue();
        return go;
    }

    /** Records each call's operation and, for a combined one, how many answers it gave. */
    private void recordCalls() {
        SqlConnections.answered = (operation, answer, connection) -> calls.add(answer instanceof List<?> list ? operation + " x" + list.size() : operation);
    }

    /** Names whose rows exist (taken and released once by another client), with the token each was last granted. */
    private Map<String, Long> usedNames(int count) throws Exception {
        Map<String, Long> names = new LinkedHashMap<>();
        LockClient other = newClient();
        for (int i = 0; i < count; i++) {
            String name = uniqueName();
            try (Lease lease = other.getLock(name).acquire(SOON)) {
                names.put(name, lease.fencingToken());
            }
        }
        return names;
    }

    /** Queues an acquire of each name (owner "owner-" + name) while the worker is held, so that one drain takes them all. */
    private Map<String, CompletableFuture<AcquireResult>> acquiresQueuedAtOnce(Backend b, Collection<String> names) throws InterruptedException {
        CountDownLatch go = holdTheWorker(b.pool());
        Map<String, CompletableFuture<AcquireResult>> acquires = new LinkedHashMap<>();
        for (String name : names) {
            acquires.put(name, b.backend().tryAcquire(name, "owner-" + name, LEASE));
        }
        go.countDown();
        return acquires;
    }

    /** Queues a release of each name (owner "owner-" + name) while the worker is held, so that one drain takes them all. */
    private Map<String, CompletableFuture<OwnerCheck>> releasesQueuedAtOnce(Backend b, Collection<String> names) throws InterruptedException {
        CountDownLatch go = holdTheWorker(b.pool());
        Map<String, CompletableFuture<OwnerCheck>> releases = new LinkedHashMap<>();
        for (String name : names) {
            releases.put(name, b.backend().release(name, "owner-" + name));
        }
        go.countDown();
        return releases;
    }

    /** Asserts each acquire granted with the token after the one its name was last granted, and that token in the row. */
    private void assertEachGrantedWithTheNextToken(Map<String, CompletableFuture<AcquireResult>> acquires, Map<String, Long> used) throws Exception {
        for (Map.Entry<String, CompletableFuture<AcquireResult>> acquire : acquires.entrySet()) {
            AcquireResult result = acquire.getValue().get(SOON.toSeconds(), TimeUnit.SECONDS);
            assertThat(result.granted()).as("acquire of %s", acquire.getKey()).isTrue();
            assertThat(result.fencingToken()).as("token of %s", acquire.getKey()).isEqualTo(used.get(acquire.getKey()) + 1)
                    .isEqualTo(hooks().lastTokenInBackend(LockKind.LOCK, acquire.getKey()).orElseThrow());
        }
    }

    @Test
    void queuedAcquiresAndReleasesOfDistinctNamesRunAsOneStatementEachWithTheirOwnAnswers() throws Exception {
        Backend b = backend(Duration.ofSeconds(10));
        Map<String, Long> used = usedNames(5);
        List<String> fresh = List.of(uniqueName(), uniqueName()); // no row yet: the combined take misses them, the insert makes them
        String busy = uniqueName();
        Lease held = newClient().getLock(busy, lease(LEASE, false)).acquire(SOON);
        recordCalls();

        CountDownLatch go = holdTheWorker(b.pool());
        Map<String, CompletableFuture<AcquireResult>> acquires = new LinkedHashMap<>();
        for (String name : used.keySet()) {
            acquires.put(name, b.backend().tryAcquire(name, "owner-" + name, LEASE));
        }
        for (String name : fresh) {
            acquires.put(name, b.backend().tryAcquire(name, "owner-" + name, LEASE));
        }
        CompletableFuture<AcquireResult> refused = b.backend().tryAcquire(busy, "owner-" + busy, LEASE);
        go.countDown();

        assertThat(refused.get(SOON.toSeconds(), TimeUnit.SECONDS).granted()).as("the name another client holds").isFalse();
        for (Map.Entry<String, CompletableFuture<AcquireResult>> acquire : acquires.entrySet()) {
            AcquireResult result = acquire.getValue().get(SOON.toSeconds(), TimeUnit.SECONDS);
            assertThat(result.granted()).as("acquire of %s", acquire.getKey()).isTrue();
            assertThat(result.fencingToken()).as("token of %s", acquire.getKey()).isGreaterThan(used.getOrDefault(acquire.getKey(), 0L))
                    .isEqualTo(hooks().lastTokenInBackend(LockKind.LOCK, acquire.getKey()).orElseThrow());
        }
        assertThat(calls).as("the calls that answered").contains("acquire (combined) x8");

        calls.clear();
        go = holdTheWorker(b.pool());
        Map<String, CompletableFuture<OwnerCheck>> releases = new LinkedHashMap<>();
        for (String name : acquires.keySet()) {
            releases.put(name, b.backend().release(name, "owner-" + name));
        }
        CompletableFuture<OwnerCheck> notOurs = b.backend().release(busy, "owner-" + busy);
        go.countDown();
        assertThat(notOurs.get(SOON.toSeconds(), TimeUnit.SECONDS)).as("a release of the name another client holds").isEqualTo(OwnerCheck.OTHER_OWNER);
        for (Map.Entry<String, CompletableFuture<OwnerCheck>> release : releases.entrySet()) {
            assertThat(release.getValue().get(SOON.toSeconds(), TimeUnit.SECONDS)).as("release of %s", release.getKey()).isEqualTo(OwnerCheck.OWNER);
            assertThat(b.backend().isLocked(release.getKey()).get(SOON.toSeconds(), TimeUnit.SECONDS)).as("%s after its release", release.getKey()).isFalse();
        }
        assertThat(calls).as("the calls that answered").contains("release (combined) x8");
        assertThat(b.backend().isLocked(busy).get(SOON.toSeconds(), TimeUnit.SECONDS)).as("the other client's hold, untouched").isTrue();
        held.close();
    }

    /** The server's expiry of each name's row, read on {@code connection}. */
    private static Map<String, Timestamp> expiries(Connection connection, Collection<String> names) throws SQLException {
        Map<String, Timestamp> expiries = new HashMap<>();
        try (PreparedStatement read = connection.prepareStatement("SELECT expires_at FROM " + JdbcLockClient.DEFAULT_TABLE + " WHERE lock_key = ?")) {
            for (String name : names) {
                read.setBytes(1, LockTable.key(name));
                try (ResultSet row = read.executeQuery()) {
                    assertThat(row.next()).as("the row of %s", name).isTrue();
                    expiries.put(name, row.getTimestamp(1));
                }
            }
        }
        return expiries;
    }

    /**
     * Fails if a combined take, run again after its answer was lost, treats the rows it took itself as another owner's:
     * every request would be told the lock is busy while its row stays held in its name until the lease runs out. And
     * fails if the replay leaves the first run's expiry on the server: the client times the lease from the replay.
     */
    @Test
    void aCombinedTakeWhoseAnswerWasLostRunsAgainAndEveryRequestKeepsItsGrantAndToken() throws Exception {
        Backend b = backend(Duration.ofSeconds(10));
        Map<String, Long> used = usedNames(4);
        AtomicBoolean lost = new AtomicBoolean();
        Map<String, Timestamp> firstRun = new ConcurrentHashMap<>();
        SqlConnections.answered = (operation, answer, connection) -> {
            calls.add(operation);
            if (operation.equals("acquire (combined)") && lost.compareAndSet(false, true)) {
                firstRun.putAll(expiries(connection, used.keySet()));
                connection.close();
                throw new SQLException("the answer was lost (test)", "08006");
            }
        };
        Map<String, CompletableFuture<AcquireResult>> acquires = acquiresQueuedAtOnce(b, used.keySet());
        // the replay kept the token of the run whose answer was lost: one token per grant
        assertEachGrantedWithTheNextToken(acquires, used);
        try (Connection connection = database().connect()) {
            Map<String, Timestamp> replayed = expiries(connection, used.keySet());
            for (String name : used.keySet()) {
                assertThat(replayed.get(name)).as("the expiry of %s after the replay", name).isAfter(firstRun.get(name));
            }
        }
        for (String name : used.keySet()) {
            assertThat(b.backend().release(name, "owner-" + name).get(SOON.toSeconds(), TimeUnit.SECONDS)).isEqualTo(OwnerCheck.OWNER);
        }
        assertThat(lost).as("a combined take's answer was lost").isTrue();
        assertThat(calls.stream().filter("acquire (combined)"::equals).count()).as("the combined take and its replay").isEqualTo(2);
    }

    /**
     * Fails if a combined call that fails fails its requests: one request's trouble (here the whole statement refused,
     * once) must not pass for the others'. Each runs alone, and each is granted with its own token.
     */
    @Test
    void aCombinedTakeThatFailsRunsEachRequestAloneAndEachGetsItsOwnAnswer() throws Exception {
        Backend b = backend(Duration.ofSeconds(10));
        Map<String, Long> used = usedNames(3);
        AtomicBoolean refused = new AtomicBoolean();
        SqlConnections.answered = (operation, answer, connection) -> {
            calls.add(operation);
            if (operation.equals("acquire (combined)") && refused.compareAndSet(false, true)) {
                throw new SQLException("refused (test)", "XX000");
            }
        };
        Map<String, CompletableFuture<AcquireResult>> acquires = acquiresQueuedAtOnce(b, used.keySet());
        // the refused combined take had taken the rows (the seam runs after the statement): alone, each keeps its token
        assertEachGrantedWithTheNextToken(acquires, used);
        assertThat(calls.stream().filter("acquire"::equals).count()).as("the requests run alone").isEqualTo(3);
        for (String name : used.keySet()) {
            assertThat(b.backend().release(name, "owner-" + name).get(SOON.toSeconds(), TimeUnit.SECONDS)).isEqualTo(OwnerCheck.OWNER);
        }
    }

    /**
     * Fails if two requests on one row go into one combined take: the statement updates the row once, for one of them,
     * and its answer (a row per key) cannot say for which; the other request could be told it holds.
     */
    @Test
    void twoQueuedAcquiresOfOneNameAreNotCombinedAndOnlyOneHolds() throws Exception {
        Backend b = backend(Duration.ofSeconds(10));
        Map<String, Long> used = usedNames(3);
        String contended = used.keySet().iterator().next();
        recordCalls();
        CountDownLatch go = holdTheWorker(b.pool());
        List<CompletableFuture<AcquireResult>> others = new ArrayList<>();
        for (String name : used.keySet()) {
            others.add(b.backend().tryAcquire(name, "first-" + name, LEASE));
        }
        CompletableFuture<AcquireResult> second = b.backend().tryAcquire(contended, "second-" + contended, LEASE);
        go.countDown();
        for (CompletableFuture<AcquireResult> other : others) {
            assertThat(other.get(SOON.toSeconds(), TimeUnit.SECONDS).granted()).isTrue();
        }
        assertThat(second.get(SOON.toSeconds(), TimeUnit.SECONDS).granted()).as("the second request on a name the first holds").isFalse();
        assertThat(calls).as("the calls that answered").contains("acquire (combined) x3");
        assertThat(b.backend().release(contended, "second-" + contended).get(SOON.toSeconds(), TimeUnit.SECONDS)).isEqualTo(OwnerCheck.OTHER_OWNER);
        for (String name : used.keySet()) {
            assertThat(b.backend().release(name, "first-" + name).get(SOON.toSeconds(), TimeUnit.SECONDS)).as("release of %s", name)
                    .isEqualTo(OwnerCheck.OWNER);
        }
    }

    /**
     * Fails without a drain of every queue beside a held-up statement: one combined statement runs at a time, and this
     * one waits for a row another session keeps locked, so a take and a release queued after it would wait for that
     * session (here: time out) instead of running on the other worker. Both are queued before the statement is held up
     * for long (2 s here), so it is the drain {@link SqlConnections#heldUp} after the statement started that has to start
     * both, not a drain of their own.
     */
    @Test
    void aTakeAndAReleaseQueuedBehindAHeldUpCombinedTakeRunBesideIt() throws Exception {
        SqlConnections.heldUp = Duration.ofSeconds(2);
        String user = newUser();
        Backend b = backend(Duration.ofSeconds(20), 2, database().urlAs(user));
        Map<String, Long> used = usedNames(4);
        List<String> names = new ArrayList<>(used.keySet());
        assertThat(b.backend().tryAcquire(names.get(3), "owner-" + names.get(3), LEASE).get(SOON.toSeconds(), TimeUnit.SECONDS).granted())
                .as("the name to release behind the held-up take").isTrue();
        try (Connection other = ConnectionSource.of(database().target(), null, null).open()) {
            other.setAutoCommit(false);
            other.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED); // MariaDB's REPEATABLE READ would lock every row its scan reads
            try (PreparedStatement lockRow = other.prepareStatement("UPDATE " + JdbcLockClient.DEFAULT_TABLE + " SET fence = fence WHERE lock_name = ?")) {
                lockRow.setString(1, names.get(0));
                assertThat(lockRow.executeUpdate()).as("the row another session keeps locked").isEqualTo(1);
            }
            CountDownLatch first = holdTheWorker(b.pool());
            CountDownLatch second = holdTheWorker(b.pool());
            CompletableFuture<AcquireResult> heldUp = b.backend().tryAcquire(names.get(0), "owner-" + names.get(0), LEASE);
            CompletableFuture<AcquireResult> withIt = b.backend().tryAcquire(names.get(1), "owner-" + names.get(1), LEASE);
            first.countDown();
            second.countDown();
            Await.until(SOON, "the combined take waits for the locked row", () -> blockedSessionsOf(user) > 0);
            CompletableFuture<AcquireResult> behind = b.backend().tryAcquire(names.get(2), "owner-" + names.get(2), LEASE);
            CompletableFuture<OwnerCheck> releaseBehind = b.backend().release(names.get(3), "owner-" + names.get(3));
            AcquireResult result = behind.get(SOON.toSeconds(), TimeUnit.SECONDS);
            assertThat(result.granted()).as("the take queued behind the held-up one").isTrue();
            assertThat(result.fencingToken()).isEqualTo(used.get(names.get(2)) + 1);
            assertThat(releaseBehind.get(SOON.toSeconds(), TimeUnit.SECONDS)).as("the release queued behind the held-up take")
                    .isEqualTo(OwnerCheck.OWNER);
            assertThat(heldUp).as("the held-up take, while the row stays locked").isNotDone();
            other.rollback();
            assertThat(heldUp.get(SOON.toSeconds(), TimeUnit.SECONDS).granted()).as("the held-up take once the row is free").isTrue();
            assertThat(withIt.get(SOON.toSeconds(), TimeUnit.SECONDS).granted()).isTrue();
        }
        for (String name : names.subList(0, 3)) {
            assertThat(b.backend().release(name, "owner-" + name).get(SOON.toSeconds(), TimeUnit.SECONDS)).as("release of %s", name)
                    .isEqualTo(OwnerCheck.OWNER);
        }
    }

    /**
     * Fails without the late answer's handling in a combined call: the callers gave up (operation timeout) while the
     * statement ran, so nobody holds the grants, and the rows would stay taken until their leases ran out.
     */
    @Test
    void grantsOfACombinedTakeWhoseCallersGaveUpAreReleased() throws Exception {
        Backend b = backend(Duration.ofSeconds(2));
        Map<String, Long> used = usedNames(3);
        CountDownLatch answered = new CountDownLatch(1);
        AtomicReference<Map<String, CompletableFuture<AcquireResult>>> queued = new AtomicReference<>();
        SqlConnections.answered = (operation, answer, connection) -> {
            if (operation.equals("acquire (combined)") && answered.getCount() > 0) {
                answered.countDown();
                // the statement has run: hold its answer until every caller has given up (operation timeout, 2 s)
                Await.until(SOON, "the callers give up", () -> queued.get() != null
                        && queued.get().values().stream().allMatch(CompletableFuture::isCompletedExceptionally));
            }
        };
        queued.set(acquiresQueuedAtOnce(b, used.keySet()));
        assertThat(answered.await(SOON.toSeconds(), TimeUnit.SECONDS)).as("the combined take ran").isTrue();
        for (CompletableFuture<AcquireResult> acquire : queued.get().values()) {
            Await.until(SOON, "the caller gives up", acquire::isCompletedExceptionally);
        }
        for (String name : used.keySet()) {
            Await.until(SOON, "the late grant of " + name + " is released", () -> !b.backend().isLocked(name).join());
        }
    }

    /**
     * Fails if a request whose caller gave up before a drain took it still runs: it would take the row (and a token)
     * for nobody, and hold the name from others until its late release.
     */
    @Test
    void requestsWhoseCallersGaveUpBeforeTheyRanAreNotRun() throws Exception {
        Backend b = backend(Duration.ofSeconds(2));
        Map<String, Long> used = usedNames(3);
        recordCalls();
        CountDownLatch go = holdTheWorker(b.pool());
        List<CompletableFuture<AcquireResult>> abandoned = new ArrayList<>();
        for (String name : used.keySet()) {
            abandoned.add(b.backend().tryAcquire(name, "owner-" + name, LEASE));
        }
        for (CompletableFuture<AcquireResult> acquire : abandoned) {
            Await.until(SOON, "the caller gives up (operation timeout, 2 s)", acquire::isCompletedExceptionally);
        }
        go.countDown();
        // a later request on the one worker runs after every drain queued before it: the abandoned ones are past
        String later = uniqueName();
        assertThat(b.backend().tryAcquire(later, "owner-" + later, LEASE).get(SOON.toSeconds(), TimeUnit.SECONDS).granted()).isTrue();
        assertThat(b.backend().release(later, "owner-" + later).get(SOON.toSeconds(), TimeUnit.SECONDS)).isEqualTo(OwnerCheck.OWNER);
        for (Map.Entry<String, Long> name : used.entrySet()) {
            assertThat(hooks().lastTokenInBackend(LockKind.LOCK, name.getKey())).as("the last token of %s", name.getKey()).hasValue(name.getValue());
            assertThat(b.backend().isLocked(name.getKey()).get(SOON.toSeconds(), TimeUnit.SECONDS)).as("%s", name.getKey()).isFalse();
        }
        assertThat(calls).as("the calls that answered").doesNotContain("acquire (combined)");
        assertThat(calls.stream().filter("acquire"::equals).count()).as("acquires run: the later one alone").isEqualTo(1);
    }

    /**
     * Fails if a release that reads its row after it was carried out (a replay, or a combined release on MariaDB that
     * could not say which of its rows it ended) calls the next holder's take a loss: its hold was released, and the
     * caller's unlock must not throw TAKEN_OVER.
     */
    @Test
    void aReleaseReadAgainAfterAnotherTookTheRowIsAnsweredReleased() throws Exception {
        Backend b = backend(Duration.ofSeconds(10));
        String name = uniqueName();
        assertThat(b.backend().tryAcquire(name, "first", LEASE).get(SOON.toSeconds(), TimeUnit.SECONDS).granted()).isTrue();
        assertThat(b.backend().release(name, "first").get(SOON.toSeconds(), TimeUnit.SECONDS)).isEqualTo(OwnerCheck.OWNER);
        assertThat(b.backend().tryAcquire(name, "next", LEASE).get(SOON.toSeconds(), TimeUnit.SECONDS).granted()).isTrue();
        assertThat(b.backend().release(name, "first").get(SOON.toSeconds(), TimeUnit.SECONDS)).as("the first release, run again")
                .isEqualTo(OwnerCheck.OWNER);
        assertThat(b.backend().isLocked(name).get(SOON.toSeconds(), TimeUnit.SECONDS)).as("the next holder's hold, untouched").isTrue();
        assertThat(b.backend().release(name, "never").get(SOON.toSeconds(), TimeUnit.SECONDS)).as("an owner that never held")
                .isEqualTo(OwnerCheck.OTHER_OWNER);
        assertThat(b.backend().release(name, "next").get(SOON.toSeconds(), TimeUnit.SECONDS)).isEqualTo(OwnerCheck.OWNER);
    }

    /**
     * Fails if a combined release, run again after its answer was lost, tells its callers they did not hold: the first
     * run released every row, so the replay changes nothing, and each release must still be told it released.
     */
    @Test
    void aCombinedReleaseWhoseAnswerWasLostRunsAgainAndEachIsToldItReleased() throws Exception {
        Backend b = backend(Duration.ofSeconds(10));
        Map<String, Long> used = usedNames(4);
        for (String name : used.keySet()) {
            assertThat(b.backend().tryAcquire(name, "owner-" + name, LEASE).get(SOON.toSeconds(), TimeUnit.SECONDS).granted()).isTrue();
        }
        AtomicBoolean lost = new AtomicBoolean();
        SqlConnections.answered = (operation, answer, connection) -> {
            calls.add(operation);
            if (operation.equals("release (combined)") && lost.compareAndSet(false, true)) {
                connection.close();
                throw new SQLException("the answer was lost (test)", "08006");
            }
        };
        Map<String, CompletableFuture<OwnerCheck>> releases = releasesQueuedAtOnce(b, used.keySet());
        for (Map.Entry<String, CompletableFuture<OwnerCheck>> release : releases.entrySet()) {
            assertThat(release.getValue().get(SOON.toSeconds(), TimeUnit.SECONDS)).as("release of %s after the replay", release.getKey())
                    .isEqualTo(OwnerCheck.OWNER);
            assertThat(b.backend().isLocked(release.getKey()).get(SOON.toSeconds(), TimeUnit.SECONDS)).as("%s after its release", release.getKey()).isFalse();
        }
        assertThat(lost).as("a combined release's answer was lost").isTrue();
        assertThat(calls.stream().filter("release (combined)"::equals).count()).as("the combined release and its replay").isEqualTo(2);
    }
}
