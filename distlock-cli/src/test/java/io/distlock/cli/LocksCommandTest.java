package io.distlock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.redis.RedisLockClient;
import io.distlock.servers.RedisServer;
import io.distlock.servers.ZooKeeperServer;
import io.distlock.zookeeper.ZooKeeperLockClient;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code distlock locks} against a real redis-server and an in-process ZooKeeper. */
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

    private record Run(int exit, String out, String err) {}

    private static Run run(String stdin, String... args) {
        PrintStream originalOut = System.out;
        InputStream originalIn = System.in;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        StringWriter err = new StringWriter();
        try {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            System.setIn(new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)));
            CommandLine commandLine = DistlockCommand.newCommandLine();
            commandLine.setErr(new PrintWriter(err, true));
            int exit = commandLine.execute(args);
            return new Run(exit, out.toString(StandardCharsets.UTF_8), err.toString());
        } finally {
            System.setOut(originalOut);
            System.setIn(originalIn);
        }
    }

    @Test
    void listShowsEveryKindWithItsHolderTokenAndWaitersOnRedis() throws Exception {
        try (LockClient client = RedisLockClient.create(redis.uri())) {
            Lease plain = client.getLock("orders:42").acquire(Duration.ofSeconds(5));
            Lease fair = client.getFairLock("report").acquire(Duration.ofSeconds(5));
            Lease permit = client.getSemaphore("exports", 4).acquire(Duration.ofSeconds(5));
            Run list = run("", "locks", "--redis", redis.uri(), "list");
            assertThat(list.exit()).as(list.err()).isZero();
            assertThat(list.out()).contains("orders:42", "report", "exports", "fair-lock", "semaphore (4)",
                    Long.toString(plain.fencingToken()), Long.toString(fair.fencingToken()), Long.toString(permit.fencingToken()));
            Run pattern = run("", "locks", "--redis", redis.uri(), "list", "orders:*");
            assertThat(pattern.out()).contains("orders:42").doesNotContain("report");
            Run json = run("", "locks", "--redis", redis.uri(), "--json", "show", "report");
            assertThat(json.out()).contains("\"name\": \"report\"", "\"kind\": \"fair-lock\"", "\"token\": " + fair.fencingToken(), "\"waiters\": 0");
        }
    }

    @Test
    void unlockAsksFirstAndFreesTheLockWithYes() throws Exception {
        try (LockClient client = RedisLockClient.create(redis.uri())) {
            Lease held = client.getLock("stuck").acquire(Duration.ofSeconds(5));
            Run refused = run("n\n", "locks", "--redis", redis.uri(), "unlock", "stuck");
            assertThat(refused.exit()).isEqualTo(1);
            assertThat(refused.out()).contains("force-unlock this lock? [y/N]", "not unlocked");
            assertThat(client.getLock("stuck").isLocked()).isTrue();
            Run done = run("", "locks", "--redis", redis.uri(), "unlock", "stuck", "--yes");
            assertThat(done.exit()).as(done.err()).isZero();
            assertThat(done.out()).contains("unlocked 'stuck'");
            assertThat(client.getLock("stuck").isLocked()).isFalse();
            Run again = run("", "locks", "--redis", redis.uri(), "unlock", "stuck", "--yes");
            assertThat(again.out()).contains("nothing to unlock");
            held.close();
        }
    }

    @Test
    void listAndUnlockWorkOnZooKeeper() throws Exception {
        try (LockClient client = ZooKeeperLockClient.create(zooKeeper.connectString())) {
            Lease writer = client.getReadWriteLock("prices").writeLock().acquire(Duration.ofSeconds(5));
            Run list = run("", "locks", "--zookeeper", zooKeeper.connectString(), "list");
            assertThat(list.exit()).as(list.err()).isZero();
            assertThat(list.out()).contains("prices", "read-write-lock", "write", Long.toString(writer.fencingToken()), "session");
            Run done = run("", "locks", "--zookeeper", zooKeeper.connectString(), "unlock", "prices", "--yes");
            assertThat(done.out()).contains("unlocked 'prices'");
            assertThat(client.getReadWriteLock("prices").writeLock().isLocked()).isFalse();
        }
    }

    @Test
    void aMissingOrUnreachableBackendIsOneLineAndExitTwo() {
        Run none = run("", "locks", "list");
        assertThat(none.exit()).isEqualTo(2);
        assertThat(none.err()).contains("name one backend");
        Run unreachable = run("", "locks", "--redis", "redis://127.0.0.1:1", "list");
        assertThat(unreachable.exit()).isEqualTo(2);
        assertThat(unreachable.err()).contains("--redis").doesNotContain("\tat ");
    }
}
