package io.distlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.DistributedLock;
import io.distlock.DistributedReadWriteLock;
import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiFunction;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The queue table's own cases (fair locks, read-write locks and semaphores on SQL) that the shared tiers cannot stage:
 * a dead waiter at the head of the queue, a downgrade by a writer that was force-unlocked, a table made before the
 * queue table existed.
 */
abstract class SqlKindsContract extends SqlContractSupport {

    /** A client that never polls on its own (fallback and release polls of 5 minutes) and holds for 60 s leases. */
    private LockClient quietClient() {
        return closeAfterTest(JdbcLockClient.builder().jdbcUrl(database().target()).fallbackPoll(NO_POLLING).releasePoll(NO_POLLING)
                .leaseTime(Duration.ofSeconds(60)).build());
    }

    /**
     * Guard: a waiter checks again when the row ahead of it runs out. A waiter that died at the head of the queue (its
     * row inserted here as a crashed client's would be left, with a 5 s heartbeat) holds up the queue only until its
     * heartbeat ends: the live waiter behind it, whose own heartbeat check comes only every 20 s (a third of its lease)
     * and which never polls, is woken then, well before its 20 s wait ends. Without that wake it would sleep through
     * it (PostgreSQL; elsewhere the backoff of the release poll may wake it too).
     */
    @Test
    void aDeadWaiterAtTheHeadOfTheQueueHoldsItUpOnlyUntilItsHeartbeatEnds() throws Exception {
        String name = uniqueName();
        Lease holder = newClient().getFairLock(name).acquire(SOON);
        insertWaitingRow("fair", name, 'X', "a-crashed-client", 5_000);
        Future<Optional<Lease>> waiter = queuedWaiter(quietClient().getFairLock(name), SOON);
        holder.close();
        Optional<Lease> granted = wokenWithin(waiter); // not by the last check at the end of its wait
        assertThat(granted).as("the waiter behind the dead one").isPresent();
        assertThat(granted.get().fencingToken()).isGreaterThan(holder.fencingToken());
        granted.get().close();
    }

    /**
     * Guard: a downgrade inserts its reader only if the writer's row is live and granted, under the name's counter
     * lock. Here the writer was force-unlocked (its holder has not renewed since, so it does not know) and another
     * writer was granted; a reader made without that check would hold beside that writer.
     */
    @Test
    void aDowngradeByAForceUnlockedWriterIsRefusedWhileAnotherWriterHolds() throws Exception {
        String name = uniqueName();
        DistributedReadWriteLock stale = quietClient().getReadWriteLock(name);
        Future<Boolean> downgraded = inBackground(() -> {
            stale.writeLock().lock();
            assertThat(newClient().getReadWriteLock(name).writeLock().forceUnlock()).isTrue();
            try (Lease other = newClient().getReadWriteLock(name).writeLock().acquire(SOON)) {
                boolean read = stale.readLock().tryLock();
                assertThat(other.isValid()).isTrue();
                return read;
            }
        });
        assertThat(downgraded.get(60, TimeUnit.SECONDS)).as("a read by the force-unlocked writer while another writer holds").isFalse();
    }

    /**
     * Guard: a transaction the database ended as a deadlock victim (SQLState class 40) is run again. Several first joins
     * of a new name at once each find no counter row and insert it; on MariaDB/MySQL the gap locks their empty updates
     * took make those inserts deadlock, and InnoDB rolls one transaction back (error 1213), which surfaced as a failed
     * acquire (seen once in CI, on the virtual-thread test). Eight clients join each of 40 new names at once, as
     * readers, who all hold together.
     */
    @Test
    @Tag("slow") // 8 clients x 40 new names, half a minute on H2; -Pslow runs it in CI (the deadlock retry's guard on MariaDB)
    void firstJoinsOfANewNameAtOnceAllHold() throws Exception {
        int clients = 8;
        List<LockClient> joiners = new java.util.ArrayList<>();
        for (int i = 0; i < clients; i++) {
            joiners.add(newClient());
        }
        java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newFixedThreadPool(clients);
        try {
            for (int round = 0; round < 40; round++) {
                String name = uniqueName();
                java.util.concurrent.CyclicBarrier start = new java.util.concurrent.CyclicBarrier(clients);
                List<Future<Optional<Lease>>> reads = new java.util.ArrayList<>();
                for (LockClient joiner : joiners) {
                    reads.add(threads.submit(() -> {
                        start.await(30, TimeUnit.SECONDS);
                        return joiner.getReadWriteLock(name).readLock().tryAcquire(SOON);
                    }));
                }
                for (Future<Optional<Lease>> read : reads) {
                    Optional<Lease> lease = read.get(60, TimeUnit.SECONDS);
                    assertThat(lease).as("round %d: a reader of a new name", round).isPresent();
                    lease.get().close();
                }
            }
        } finally {
            threads.shutdownNow();
        }
    }

    /**
     * A table made before the queue table existed, with {@code createTable(false)}: plain locks work on it; fair locks,
     * read-write locks and semaphores fail at once naming the queue table and quoting its CREATE TABLE, and once a DBA
     * has run it, they work.
     */
    @Test
    void withoutTheQueueTablePlainLocksWorkAndTheOtherKindsSayWhatToCreate() throws Exception {
        newClient(); // the default tables, which the check for leftovers after the test reads
        String table = "noqueue_locks_" + Long.toString(System.nanoTime(), 36);
        List<String> ddl = database().kind().dialect(LockTable.named(table)).ddl();
        database().execute(List.of(ddl.get(0)));
        LockClient client = closeAfterTest(JdbcLockClient.builder().jdbcUrl(database().target()).table(table).createTable(false).build());
        String name = uniqueName();
        try (Lease plain = client.getLock(name).acquire(SOON)) {
            assertThat(plain.isValid()).isTrue();
        }
        for (org.assertj.core.api.ThrowableAssert.ThrowingCallable kind : List.<org.assertj.core.api.ThrowableAssert.ThrowingCallable>of(
                () -> client.getFairLock(name).tryLock(), () -> client.getReadWriteLock(name).readLock().tryLock(),
                () -> client.getSemaphore(name, 2).tryAcquire(Duration.ZERO))) {
            assertThatThrownBy(kind).isInstanceOf(LockException.class).hasMessageContaining("queue table " + table + "_queue")
                    .hasMessageContaining("CREATE TABLE IF NOT EXISTS " + table + "_queue");
        }
        database().execute(List.of(ddl.get(1)));
        LockClient after = closeAfterTest(JdbcLockClient.builder().jdbcUrl(database().target()).table(table).createTable(false).build());
        try (Lease fair = after.getFairLock(name).acquire(SOON)) {
            assertThat(fair.isValid()).isTrue();
        }
    }

    /**
     * Guard: a join run again (its first answer lost with its connection, so the client's connections ran it once more)
     * leaves one row of its owner id, not a second one nobody refreshes standing ahead of it for a whole heartbeat.
     */
    @Test
    void aJoinRunAgainAfterItsAnswerWasLostLeavesOneRowOfItsOwner() throws Exception {
        String name = uniqueName();
        Lease holder = newClient().getFairLock(name).acquire(SOON);
        SqlQueue fair = new SqlQueue(null, database().kind().dialect(LockTable.named(LockTable.DEFAULT_NAME)), null, Duration.ofMillis(100),
                "test", SOON, "fair", SqlQueue.Rule.EXCLUSIVE, 0);
        try (Connection connection = database().connect()) {
            long first = fair.join(connection, name, "a-replayed-join", 0, 30_000, 'X').ticket();
            long again = fair.join(connection, name, "a-replayed-join", 0, 30_000, 'X').ticket();
            assertThat(again).isGreaterThan(first);
            assertThat(fair.live(connection, fair.key(name))).extracting(SqlQueue.Row::owner).as("the holder, then the join's one row")
                    .containsExactly(fair.live(connection, fair.key(name)).get(0).owner(), "a-replayed-join");
            fair.deleteOwner(connection, name, "a-replayed-join");
        }
        holder.close();
    }

    /**
     * Guard: a force unlock whose answer was lost after the server ran it (its pooled connection died between the commit
     * and the reply), so that the client's connections ran it again on a new connection, ends nobody granted in between.
     * The plain lock's second run compares the hold it read (owner and fence); the queue kinds' finds its request on the
     * name's counter row. Without either, the second run ends the holder granted in between.
     */
    @Test
    void aForceUnlockRunAgainAfterItsAnswerWasLostEndsNobodyGrantedSince() throws Exception {
        LockClient operator = quietClient();
        LockClient holders = newClient();
        Map<String, BiFunction<LockClient, String, DistributedLock>> kinds = new LinkedHashMap<>();
        kinds.put("lock", LockClient::getLock);
        kinds.put("fair lock", LockClient::getFairLock);
        kinds.put("write lock", (client, name) -> client.getReadWriteLock(name).writeLock());
        for (Map.Entry<String, BiFunction<LockClient, String, DistributedLock>> kind : kinds.entrySet()) {
            String name = uniqueName();
            DistributedLock lock = kind.getValue().apply(holders, name);
            Lease first = lock.acquire(SOON);
            DistributedLock later = kind.getValue().apply(newClient(), name); // another client: this one's threads queue behind its holder
            DistributedLock seen = kind.getValue().apply(operator, name);
            assertThat(seen.isLocked()).isTrue(); // and the operator's connection is pooled now: a dead one is replaced, the call run again
            AtomicReference<Lease> grantedMeanwhile = new AtomicReference<>();
            SqlConnections.answered = (operation, answer, connection) -> {
                boolean ended = Boolean.TRUE.equals(answer) || (answer instanceof Integer count && count > 0);
                if (operation.equals("forceUnlock") && ended && grantedMeanwhile.get() == null) {
                    try {
                        grantedMeanwhile.set(later.acquire(SOON));
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new SQLException("interrupted", e);
                    }
                    connection.close();
                    throw new SQLException("the answer was lost (test)", "08006");
                }
            };
            try {
                boolean forced = kind.getKey().equals("write lock") ? operator.getReadWriteLock(name).forceUnlock() : seen.forceUnlock();
                assertThat(forced).as("%s: the force unlock says it ended a hold", kind.getKey()).isTrue();
            } finally {
                SqlConnections.answered = (operation, answer, connection) -> { };
            }
            assertThat(grantedMeanwhile.get()).as("%s: granted between the run and its replay", kind.getKey()).isNotNull();
            assertThat(seen.isLocked()).as("%s: the holder granted between the force unlock and its replay still holds", kind.getKey()).isTrue();
            assertThat(grantedMeanwhile.get().fencingToken()).isGreaterThan(first.fencingToken());
            grantedMeanwhile.get().close();
            assertThat(seen.isLocked()).as("%s: released by its holder", kind.getKey()).isFalse();
        }
    }

    /** Inserts a waiting row into {@code name}'s queue of {@code kind} behind every row there, as a crashed client leaves it. */
    private void insertWaitingRow(String kind, String name, char role, String owner, long heartbeatMillis) throws Exception {
        SqlDialect dialect = database().kind().dialect(LockTable.named(LockTable.DEFAULT_NAME));
        try (Connection connection = database().connect()) {
            SqlQueue.inTransaction(connection, () -> {
                byte[] key = LockTable.key(kind + ":" + name);
                long ticket;
                try (PreparedStatement bump = connection.prepareStatement("UPDATE distlock_locks_queue SET fence = fence + 1 WHERE lock_key = ? "
                        + "AND ticket = 0")) {
                    bump.setBytes(1, key);
                    assertThat(bump.executeUpdate()).as("the name's counter row").isOne();
                }
                try (PreparedStatement read = connection.prepareStatement("SELECT fence FROM distlock_locks_queue WHERE lock_key = ? AND ticket = 0")) {
                    read.setBytes(1, key);
                    try (var row = read.executeQuery()) {
                        row.next();
                        ticket = row.getLong(1);
                    }
                }
                try (PreparedStatement insert = connection.prepareStatement("INSERT INTO distlock_locks_queue (lock_key, ticket, lock_name, lock_role, "
                        + "owner, writer, permits, fence, lease_ms, expires_at) VALUES (?, ?, ?, ?, ?, 0, 0, 0, ?, " + dialect.nowPlusMillis() + ")")) {
                    insert.setBytes(1, key);
                    insert.setLong(2, ticket);
                    insert.setString(3, name);
                    insert.setString(4, String.valueOf(role));
                    insert.setString(5, owner);
                    insert.setLong(6, heartbeatMillis);
                    insert.setLong(7, heartbeatMillis);
                    insert.executeUpdate();
                }
                return ticket;
            });
        }
    }
}
