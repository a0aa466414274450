package io.distlock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockClients;
import io.distlock.etcd.testing.EtcdCluster;
import io.distlock.redis.RedisLockClient;
import io.distlock.redis.testing.RedisServer;
import io.distlock.zookeeper.ZooKeeperLockClient;
import io.distlock.zookeeper.testing.ZooKeeperServer;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@code distlock locks} against a real redis-server, an in-process ZooKeeper and a real etcd server. */
class LocksCommandTest {
    private static RedisServer redis;
    private static ZooKeeperServer zooKeeper;

    @BeforeAll
    static void start() {
        redis = RedisServer.launch();
        zooKeeper = ZooKeeperServer.launch();
    }

    @AfterAll
    static void stop() {
        redis.close();
        zooKeeper.close();
    }

    @Test
    void listShowsEveryKindWithItsHolderTokenAndWaitersOnRedis() throws Exception {
        try (LockClient client = RedisLockClient.create(redis.uri())) {
            Lease plain = client.getLock("orders:42").acquire(Duration.ofSeconds(5));
            Lease fair = client.getFairLock("report").acquire(Duration.ofSeconds(5));
            Lease permit = client.getSemaphore("exports", 4).acquire(Duration.ofSeconds(5));
            CliRun list = CliRun.withInput("", "locks", "--target", redis.uri(), "list");
            assertThat(list.exit()).as(list.err()).isZero();
            assertThat(list.out()).contains("orders:42", "report", "exports", "fair-lock", "semaphore (4)",
                    Long.toString(plain.fencingToken()), Long.toString(fair.fencingToken()), Long.toString(permit.fencingToken()));
            CliRun pattern = CliRun.withInput("", "locks", "--target", redis.uri(), "list", "orders:*");
            assertThat(pattern.out()).contains("orders:42").doesNotContain("report");
            CliRun json = CliRun.withInput("", "locks", "--target", redis.uri(), "--json", "show", "report");
            assertThat(json.out()).contains("\"name\": \"report\"", "\"kind\": \"fair-lock\"", "\"token\": " + fair.fencingToken(), "\"waiters\": 0");
        }
    }

    @Test
    void unlockAsksFirstAndFreesTheLockWithYes() throws Exception {
        try (LockClient client = RedisLockClient.create(redis.uri())) {
            Lease held = client.getLock("stuck").acquire(Duration.ofSeconds(5));
            CliRun refused = CliRun.withInput("n\n", "locks", "--target", redis.uri(), "unlock", "stuck");
            assertThat(refused.exit()).isEqualTo(1);
            assertThat(refused.out()).contains("force-unlock this lock? [y/N]", "not unlocked");
            assertThat(client.getLock("stuck").isLocked()).isTrue();
            CliRun done = CliRun.withInput("", "locks", "--target", redis.uri(), "unlock", "stuck", "--yes");
            assertThat(done.exit()).as(done.err()).isZero();
            assertThat(done.out()).contains("unlocked 'stuck'");
            assertThat(client.getLock("stuck").isLocked()).isFalse();
            CliRun again = CliRun.withInput("", "locks", "--target", redis.uri(), "unlock", "stuck", "--yes");
            assertThat(again.out()).contains("nothing to unlock");
            held.close();
        }
    }

    @Test
    void listAndUnlockWorkOnZooKeeper() throws Exception {
        try (LockClient client = ZooKeeperLockClient.create(zooKeeper.connectString())) {
            Lease writer = client.getReadWriteLock("prices").writeLock().acquire(Duration.ofSeconds(5));
            CliRun list = CliRun.withInput("", "locks", "--target", "zk://" + zooKeeper.connectString(), "list");
            assertThat(list.exit()).as(list.err()).isZero();
            assertThat(list.out()).contains("prices", "read-write-lock", "write", Long.toString(writer.fencingToken()), "session");
            CliRun done = CliRun.withInput("", "locks", "--target", "zk://" + zooKeeper.connectString(), "unlock", "prices", "--yes");
            assertThat(done.out()).contains("unlocked 'prices'");
            assertThat(client.getReadWriteLock("prices").writeLock().isLocked()).isFalse();
        }
    }

    @Test
    void unlockWithKindFreesOnlyThatKindWhenEveryKindHoldsTheNameOnRedis() throws Exception {
        try (LockClient client = RedisLockClient.create(redis.uri())) {
            unlockWithKindFreesOnlyThatKind(client, "redis", redis.uri());
        }
    }

    @Test
    void unlockWithKindFreesOnlyThatKindWhenEveryKindHoldsTheNameOnZooKeeper() throws Exception {
        try (LockClient client = ZooKeeperLockClient.create(zooKeeper.connectString())) {
            unlockWithKindFreesOnlyThatKind(client, "zookeeper", "zk://" + zooKeeper.connectString());
        }
    }

    /**
     * Issue 30: etcd's inspector. A writer that downgraded holds beside its reader, a second writer waits (shown as a
     * waiter, not a holder), a semaphore shows its number of permits; then every kind of one name, as on Redis.
     */
    @Test
    void listAndUnlockWorkOnEtcdForEveryKind() throws Exception {
        try (EtcdCluster etcd = EtcdCluster.launch(); LockClient client = LockClients.open(etcd.registryTarget());
                LockClient other = LockClients.open(etcd.registryTarget())) {
            String target = etcd.registryTarget();
            io.distlock.DistributedReadWriteLock prices = client.getReadWriteLock("prices");
            prices.writeLock().lock();
            long writeToken = prices.writeLock().heldLease().fencingToken();
            var waiting = java.util.concurrent.Executors.newSingleThreadExecutor();
            var waiter = waiting.submit(() -> other.getReadWriteLock("prices").writeLock().tryAcquire(Duration.ofSeconds(60)));
            io.distlock.servers.Await.until(Duration.ofSeconds(30), "the other writer waits", () -> LockClients.open(target).inspector()
                    .orElseThrow().show("prices").get(0).waiters() == 1);
            prices.readLock().lock(); // the downgrade: granted at once, though a writer waits
            long readToken = prices.readLock().heldLease().fencingToken();
            Lease permit = client.getSemaphore("pool", 3).acquire(Duration.ofSeconds(5));

            CliRun list = CliRun.withInput("", "locks", "--target", target, "list");
            assertThat(list.exit()).as(list.err()).isZero();
            assertThat(list.out()).contains("prices", "read-write-lock", "write", "read", Long.toString(writeToken), Long.toString(readToken),
                    "pool", "semaphore", "permit", Long.toString(permit.fencingToken()));
            CliRun json = CliRun.withInput("", "locks", "--target", target, "--json", "show", "prices");
            assertThat(json.out()).contains("\"waiters\": 1");

            CliRun done = CliRun.withInput("", "locks", "--target", target, "unlock", "prices", "--yes");
            assertThat(done.out()).contains("unlocked 'prices'");
            assertThat(waiter.get(30, java.util.concurrent.TimeUnit.SECONDS)).as("the waiting writer, once both holds were ended at once")
                    .isPresent().get().satisfies(Lease::close);
            waiting.shutdownNow();
            for (io.distlock.DistributedLock ended : List.of(prices.readLock(), prices.writeLock())) {
                org.assertj.core.api.Assertions.assertThatThrownBy(ended::unlock).as("each learns its loss at its release")
                        .isInstanceOf(io.distlock.LeaseLostException.class);
            }
            permit.close();
            unlockWithKindFreesOnlyThatKind(client, "etcd", target);
        }
    }

    /** Issue 30: the SQL inspector, on an H2 file database: every kind of one name, with lease times on the database clock. */
    @Test
    void listAndUnlockWorkOnSqlForEveryKind(@org.junit.jupiter.api.io.TempDir java.nio.file.Path directory) throws Exception {
        String target = "jdbc:h2:file:" + directory.resolve("locks").toAbsolutePath();
        try (LockClient client = LockClients.open(target)) {
            Lease held = client.getLock("orders").acquire(Duration.ofSeconds(5));
            Lease permit = client.getSemaphore("pool", 3).acquire(Duration.ofSeconds(5));
            CliRun list = CliRun.withInput("", "locks", "--target", target, "list");
            assertThat(list.exit()).as(list.err()).isZero();
            assertThat(list.out()).contains("orders", "lock", Long.toString(held.fencingToken()), "pool", "semaphore", "permit");
            held.close();
            permit.close();
            unlockWithKindFreesOnlyThatKind(client, "h2", target);
        }
    }

    /**
     * A plain lock, a fair lock, a read-write lock and a semaphore, all named "shared" and all held: without
     * --kind, unlock refuses (exit 2) naming the kinds it could free, and frees nothing; --kind frees that kind
     * only; a kind that is not one of lock, fair-lock, read-write-lock (a typo, or semaphore) is refused, not
     * answered with "nothing to unlock" while that name is held.
     */
    private static void unlockWithKindFreesOnlyThatKind(LockClient client, String backend, String target) throws Exception {
        String name = "shared-" + backend;
        Lease plain = client.getLock(name).acquire(Duration.ofSeconds(5));
        Lease fair = client.getFairLock(name).acquire(Duration.ofSeconds(5));
        Lease writer = client.getReadWriteLock(name).writeLock().acquire(Duration.ofSeconds(5));
        Lease permit = client.getSemaphore(name, 2).acquire(Duration.ofSeconds(5));

        CliRun ambiguous = CliRun.withInput("", "locks", "--target", target, "unlock", name, "--yes");
        assertThat(ambiguous.exit()).isEqualTo(2);
        assertThat(ambiguous.err()).contains("several kinds of lock named '" + name + "' are held (lock, fair-lock, read-write-lock): choose one with --kind");
        assertThat(List.of(plain, fair, writer, permit)).as("nothing freed without --kind").allMatch(Lease::isValid);
        assertThat(client.getLock(name).isLocked() && client.getFairLock(name).isLocked() && client.getReadWriteLock(name).writeLock().isLocked())
                .as("every kind still held on the server").isTrue();

        for (String wrong : List.of("rw", "semaphore")) {
            CliRun refused = CliRun.withInput("", "locks", "--target", target, "unlock", name, "--kind", wrong, "--yes");
            assertThat(refused.exit()).as("--kind " + wrong + ": " + refused.out()).isEqualTo(2);
            assertThat(refused.err()).contains("--kind");
        }
        assertThat(CliRun.withInput("", "locks", "--target", target, "unlock", name, "--kind", "semaphore", "--yes").err())
                .contains("semaphores are not force-unlocked");
        assertThat(CliRun.withInput("", "locks", "--target", target, "unlock", name, "--kind", "rw", "--yes").err())
                .contains("lock, fair-lock or read-write-lock");

        CliRun readWrite = CliRun.withInput("", "locks", "--target", target, "unlock", name, "--kind", "read-write-lock", "--yes");
        assertThat(readWrite.exit()).as(readWrite.err()).isZero();
        assertThat(readWrite.out()).contains("read-write-lock", "unlocked '" + name + "'").doesNotContain("fair-lock");
        assertThat(client.getReadWriteLock(name).writeLock().isLocked()).as("the read-write lock").isFalse();
        assertThat(client.getLock(name).isLocked()).as("the plain lock").isTrue();
        assertThat(client.getFairLock(name).isLocked()).as("the fair lock").isTrue();
        assertThat(client.getSemaphore(name, 2).availablePermits()).as("the semaphore's free permits").isEqualTo(1);

        CliRun plainOnly = CliRun.withInput("", "locks", "--target", target, "unlock", name, "--kind", "lock", "--yes");
        assertThat(plainOnly.exit()).as(plainOnly.err()).isZero();
        assertThat(client.getLock(name).isLocked()).as("the plain lock").isFalse();
        assertThat(client.getFairLock(name).isLocked()).as("the fair lock").isTrue();

        CliRun lastOne = CliRun.withInput("", "locks", "--target", target, "unlock", name, "--yes");
        assertThat(lastOne.exit()).as("one kind left, no --kind needed: " + lastOne.err()).isZero();
        assertThat(lastOne.out()).contains("fair-lock", "unlocked '" + name + "'");
        assertThat(client.getFairLock(name).isLocked()).as("the fair lock").isFalse();
        assertThat(permit.isValid()).as("the semaphore permit, never force-unlocked").isTrue();
        assertThat(client.getSemaphore(name, 2).availablePermits()).isEqualTo(1);
        permit.close();
        for (Lease lease : List.of(plain, fair, writer)) {
            lease.close(); // their holders learn it on renewal; closing them is the holder's part
        }
    }

    @Test
    void aMissingUnknownUninspectableOrUnreachableTargetIsOneLineAndExitTwo() {
        CliRun none = CliRun.withInput("", "locks", "list");
        assertThat(none.exit()).isEqualTo(2);
        assertThat(none.err()).contains("--target");
        CliRun unknown = CliRun.withInput("", "locks", "--target", "mongodb://u:secret@127.0.0.1:1", "list");
        assertThat(unknown.exit()).isEqualTo(2);
        assertThat(unknown.err()).contains("no backend on the classpath opens", "redis:", "zk:", "etcd:", "jdbc:postgresql:")
                .doesNotContain("secret");
        CliRun uninspectable = CliRun.withInput("", "locks", "--target", "redlock://127.0.0.1:1,127.0.0.1:2,127.0.0.1:3", "list");
        assertThat(uninspectable.exit()).isEqualTo(2);
        assertThat(uninspectable.err()).contains("the redlock backend has no lock inspector; backends with one: etcd, jdbc, redis, zookeeper");
        CliRun unreachable = CliRun.withInput("", "locks", "--target", "redis://127.0.0.1:1", "list");
        assertThat(unreachable.exit()).isEqualTo(2);
        assertThat(unreachable.err()).contains("--target").doesNotContain("\tat ");
    }

    @Test
    void theNamespaceOptionChoosesWhereTheLocksAreRead() throws Exception {
        try (LockClient client = RedisLockClient.builder().uri(redis.uri()).keyPrefix("other:").build()) {
            Lease held = client.getLock("elsewhere").acquire(Duration.ofSeconds(5));
            assertThat(CliRun.withInput("", "locks", "--target", redis.uri(), "show", "elsewhere").out()).contains("no lock named 'elsewhere'");
            CliRun there = CliRun.withInput("", "locks", "--target", redis.uri(), "--namespace", "other:", "show", "elsewhere");
            assertThat(there.out()).as(there.err()).contains("elsewhere", Long.toString(held.fencingToken()));
            held.close();
        }
    }

    @Test
    void backendsListsEveryBackendOnTheClasspathWithItsKindsInspectorAndTargets() {
        CliRun text = CliRun.withInput("", "backends");
        assertThat(text.exit()).as(text.err()).isZero();
        assertThat(text.out()).contains("etcd  ", "jdbc  ", "redis  ", "redlock  ", "zookeeper  ", "target:    zk://host:2181",
                "target:    jdbc:postgresql://");
        assertThat(text.out().lines().filter(line -> line.startsWith("  inspector: yes")).count()).isEqualTo(4);
        assertThat(text.out()).contains("deployments to start with --backend ID", "  sentinel   a master, two replicas and three Sentinels");
        CliRun json = CliRun.withInput("", "backends", "--json");
        assertThat(json.out()).startsWith("{\"backends\":[{\"id\":\"etcd\"")
                .contains("\"deployments\":[{\"id\":\"cluster\"", "{\"id\":\"zookeeper\",")
                .contains("{\"id\":\"redis\",", "\"kinds\":[\"lock\",\"fair-lock\",\"read-write-lock\",\"semaphore\"],\"inspector\":true")
                .contains("{\"id\":\"jdbc\",", "\"kinds\":[\"lock\",\"fair-lock\",\"read-write-lock\",\"semaphore\"],\"inspector\":true");
    }
}
