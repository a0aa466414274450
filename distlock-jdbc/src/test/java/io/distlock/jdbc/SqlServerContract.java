package io.distlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.distlock.BackendUnavailableException;
import io.distlock.DistributedLock;
import io.distlock.Lease;
import io.distlock.LeaseLostException;
import io.distlock.LockClient;
import io.distlock.servers.Await;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * What a database server's own settings must not break: a default isolation level stricter than the
 * statements need, and a server that turns read-only and back (a failover to a standby, an operator).
 */
abstract class SqlServerContract extends SqlContractSupport {
    /** The isolation levels a database may default to, or a pool may hand connections out at, that are stricter than READ COMMITTED. */
    private static final List<String> STRICT_LEVELS = List.of("REPEATABLE READ", "SERIALIZABLE");

    @Test
    void waitersWaitAndGetTheLockWhenTheDatabaseDefaultsToRepeatableReadOrSerializable() throws Exception {
        assumeTrue(database().defaultIsolation("") != null, database().kind() + " has no server-wide default isolation level (its sessions"
                + " set their own: see the DataSource test)");
        for (String level : STRICT_LEVELS) {
            database().execute(database().defaultIsolation(level));
            try {
                String user = newUser();
                String url = database().urlAs(user);
                anAcquireThatMeetsACommittingAcquireWaitsAndGetsTheLock(user, () -> JdbcLockClient.builder().jdbcUrl(url), level + " by default");
                contendingClientsTakeTurns(() -> JdbcLockClient.builder().jdbcUrl(url), level + " by default");
            } finally {
                database().execute(database().defaultIsolation(""));
            }
        }
    }

    @Test
    void waitersWaitAndGetTheLockOnConnectionsAPoolHandsOutAtRepeatableReadOrSerializable() throws Exception {
        for (int level : new int[] {Connection.TRANSACTION_REPEATABLE_READ, Connection.TRANSACTION_SERIALIZABLE}) {
            String user = newUser();
            DataSource pool = dataSource(database().urlAs(user), "IsolationPool", connection -> connection.setTransactionIsolation(level));
            String what = "JDBC isolation level " + level + " from the pool";
            anAcquireThatMeetsACommittingAcquireWaitsAndGetsTheLock(user, () -> JdbcLockClient.builder().dataSource(pool), what);
            contendingClientsTakeTurns(() -> JdbcLockClient.builder().dataSource(pool), what);
        }
    }

    /**
     * The interleaving that a stricter isolation level turns into an error: two acquires of a free lock
     * reach its row at once. The second UPDATE waits for the first one's row lock and runs once it commits.
     * Under READ COMMITTED it re-reads the row, finds it held and reports busy (the waiter then waits for
     * that lease); under REPEATABLE READ or SERIALIZABLE PostgreSQL refuses it instead ("could not
     * serialize access due to concurrent update"). The first acquire is the dialect's own, on a connection
     * of the test's own, so that it commits only once the server shows the second one waiting for it.
     */
    private void anAcquireThatMeetsACommittingAcquireWaitsAndGetsTheLock(String user, Supplier<JdbcLockClient.Builder> waiterClient, String isolation)
            throws Exception {
        String name = uniqueName();
        newClient().getLock(name).acquire().close(); // the lock's row exists, free
        LockClient client = closeAfterTest(waiterClient.get().operationTimeout(SOON).build());
        Future<Optional<Lease>> waiter;
        long otherFence;
        try (Connection other = database().connect()) {
            other.setAutoCommit(false);
            otherFence = database().kind().dialect(LockTable.named("distlock_locks")).take(other, LockTable.key(name), "another-client", 1_000, 1);
            assertThat(otherFence).as("the other client's acquire, not yet committed").isPositive();
            waiter = inBackground(() -> lockOf(client, name).tryAcquire(SOON));
            Await.until(SOON, "the waiter's acquire waits for the row the other acquire is updating", () -> blockedSessionsOf(user) > 0);
            other.commit();
        }
        Optional<Lease> acquired;
        try {
            acquired = waiter.get(SOON.toSeconds() + 10, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new AssertionError("the waiter failed instead of waiting for the other client's lease (" + isolation + "): " + e.getCause(), e.getCause());
        }
        assertThat(acquired).as("the waiter took the lock once the other client's lease ended (%s)", isolation).isPresent();
        assertThat(acquired.get().fencingToken()).isGreaterThan(otherFence);
        acquired.get().close();
    }

    /** Four clients take one lock 15 times each; none may fail, and never two hold it at once. */
    private void contendingClientsTakeTurns(Supplier<JdbcLockClient.Builder> clients, String isolation) throws Exception {
        String name = uniqueName();
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> runs = new ArrayList<>();
        for (int c = 0; c < 4; c++) {
            DistributedLock lock = closeAfterTest(clients.get().operationTimeout(SOON).build()).getLock(name);
            runs.add(inBackground(() -> {
                start.await();
                for (int i = 0; i < 15; i++) {
                    try (Lease lease = lock.tryAcquire(SOON).orElseThrow(() -> new AssertionError("no turn within " + SOON))) {
                        if (inside.incrementAndGet() > 1) {
                            overlaps.incrementAndGet();
                        }
                        inside.decrementAndGet();
                    } catch (RuntimeException | AssertionError e) {
                        failures.add(e);
                    }
                }
                return null;
            }));
        }
        start.countDown();
        for (Future<?> run : runs) {
            run.get(120, TimeUnit.SECONDS);
        }
        assertThat(failures).as("acquisitions that failed among four contending clients (%s)", isolation).isEmpty();
        assertThat(overlaps).as("two holders at once (%s)", isolation).hasValue(0);
    }

    @Test
    void aServerTurnedReadOnlyFailsAcquisitionsClearlyExpiresHoldersAndTheSameClientsLockAgainOnceItIsWritable() throws Exception {
        String user = newUser();
        List<String> readOnly = database().readOnly(true, user);
        assumeTrue(readOnly != null, database().kind() + " cannot turn read-only while it runs");
        String url = database().urlAs(user);
        Duration timeout = Duration.ofSeconds(1);
        LockClient holderClient = closeAfterTest(JdbcLockClient.builder().jdbcUrl(url).operationTimeout(timeout).build());
        LockClient client = closeAfterTest(JdbcLockClient.builder().jdbcUrl(url).operationTimeout(timeout).build());
        String heldName = uniqueName();
        String otherName = uniqueName();
        Lease held = holderClient.getLock(heldName, lease(Duration.ofSeconds(2), true)).acquire();
        AtomicReference<LeaseLostException> lost = new AtomicReference<>();
        held.onLost(lost::set);
        client.getLock(otherName).acquire().close(); // the client's connections are open and pooled
        Future<Optional<Lease>> waiter = queuedWaiter(client.getLock(heldName), SOON);

        database().execute(readOnly);
        try {
            Throwable waiterFailure = catchThrowable(() -> waiter.get(SOON.toSeconds() + 10, TimeUnit.SECONDS));
            assertThat(waiterFailure).as("a waiter that was waiting when the server turned read-only").isInstanceOf(ExecutionException.class);
            assertThat(waiterFailure.getCause()).isInstanceOf(BackendUnavailableException.class).hasMessageContaining("read-only");
            Duration wait = Duration.ofSeconds(2);
            Future<Optional<Lease>> attempt = inBackground(() -> client.getLock(otherName).tryAcquire(wait));
            // an answer within the wait plus the operation timeout, and then some for a slow machine: not a hang
            Throwable failure = catchThrowable(() -> attempt.get(wait.plus(timeout).toSeconds() + 10, TimeUnit.SECONDS));
            assertThat(failure).as("an acquisition on the read-only server").isInstanceOf(ExecutionException.class);
            assertThat(failure.getCause()).isInstanceOf(BackendUnavailableException.class)
                    .hasMessageContaining("read-only")
                    .hasMessageContaining("127.0.0.1:" + database().port());
            Await.until(SOON, "the holder is told its lease is lost", () -> lost.get() != null);
            assertThat(lost.get().reason()).as("the holder's loss: renewals could not be confirmed").isEqualTo(LeaseLostException.Reason.EXPIRED);
            assertThat(held.isValid()).isFalse();
        } finally {
            database().execute(database().readOnly(false, user));
        }

        // writable again: the same clients lock again, without a restart
        Optional<Lease> expired = client.getLock(heldName).tryAcquire(SOON);
        assertThat(expired).as("the lock of the holder whose lease expired, taken by the other client").isPresent();
        assertThat(expired.get().fencingToken()).isGreaterThan(held.fencingToken());
        assertThat(client.getLock(otherName).tryAcquire(SOON)).as("the lock the client failed to take while read-only").isPresent();
        assertThat(holderClient.getLock(uniqueName()).tryAcquire(SOON)).as("a new lock on the client that lost its lease").isPresent();
    }
}
