package io.distlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.distlock.DistributedLock;
import io.distlock.Lease;
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
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * What a database server's own settings must not break: a default isolation level stricter than the
 * statements need.
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
            otherFence = database().kind().dialect(LockTable.named("distlock_locks")).take(other, LockTable.key(name), "another-client", 1_000);
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
}
