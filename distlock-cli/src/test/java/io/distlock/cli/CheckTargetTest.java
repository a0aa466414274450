package io.distlock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.redis.RedisLockClient;
import io.distlock.LockClients;
import io.distlock.jdbc.testing.H2Server;
import io.distlock.zookeeper.testing.ZooKeeperServer;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import io.distlock.redis.testing.RedisServer;
import io.distlock.redis.testing.Resp;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code distlock check --target}: the checker against a server the user started, with client-side faults only, in a
 * namespace of its own that it removes afterwards, touching nothing else on the server.
 */
@Tag(CheckCommandTest.SLOW)
class CheckTargetTest {
    @TempDir
    Path out;

    @Test
    void aRunOnTheUsersRedisHoldsItsClaimsAndLeavesEveryOtherKeyAsItWas() throws Exception {
        try (RedisServer users = RedisServer.launch(); LockClient application = RedisLockClient.create(users.uri())) {
            Resp.call(users.port(), "SET", "orders:42", "paid");
            Resp.call(users.port(), "HSET", "cart:7", "sku-1", "2");
            Resp.call(users.port(), "SET", "session:9", "alice", "EX", "3600");
            Resp.call(users.port(), "SET", "distlock_check_notours:x", "a key that looks like a run's but is the user's");
            Lease held = application.getLock("nightly-report").acquire(Duration.ofSeconds(5));
            TreeSet<String> keysBefore = keys(users);
            Map<String, Object> valuesBefore = dumps(users, List.of("orders:42", "cart:7", "session:9", "distlock_check_notours:x"));

            CliRun run = CliRun.of("check", "--target", users.uri(), "--time", "40s", "--seed", "23", "--out", out.toString());

            assertThat(run.exit()).as("exit code; output:%n%s", run.out()).isZero();
            assertThat(run.out()).containsPattern("overlap +yes +ok").containsPattern("fenced-writes +yes +ok")
                    .containsPattern("removed namespace distlock_check_[0-9a-f]{8} from redis://127.0.0.1:\\d+ \\(\\d+ entries\\)")
                    .contains("repeat: ./distlock check --target " + users.uri());
            String history = Files.readString(out.resolve("history.txt"));
            assertThat(history).as("client-side faults only").contains("paused process", "killed process", "cut the connections of")
                    .doesNotContain("restarted");
            assertThat(keys(users)).as("the run's namespace is gone and every other key is there").isEqualTo(keysBefore);
            assertThat(dumps(users, List.of("orders:42", "cart:7", "session:9", "distlock_check_notours:x"))).isEqualTo(valuesBefore);
            assertThat(held.isValid()).as("the application's lock was never touched").isTrue();
            held.close();
        }
    }

    @Test
    void aRunOnTheUsersZooKeeperLeavesEveryOtherNodeAsItWas() throws Exception {
        try (ZooKeeperServer users = ZooKeeperServer.launch();
                LockClient application = LockClients.open("zk://" + users.connectString(), (String) null)) {
            ZooKeeper zk = connect(users.connectString());
            try {
                zk.create("/app", "config".getBytes(StandardCharsets.UTF_8), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                zk.create("/app/feature", "on".getBytes(StandardCharsets.UTF_8), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                Lease held = application.getLock("nightly-report").acquire(Duration.ofSeconds(5));
                Map<String, String> before = tree(zk, "/");

                // as the zookeeper deployment runs (a 2 s session, which the user's target asks for, and a 500 ms lease), with 8
                // clients: enough of them wait for a hold to end to judge the handoff
                CliRun run = CliRun.of("check", "--target", "zk://" + users.connectString() + "?sessionTimeout=2s", "--time", "40s",
                        "--lease", "500ms", "--liveness-bound", "8s", "--processes", "8", "--seed", "29", "--out", out.toString());

                assertThat(run.exit()).as("exit code; output:%n%s", run.out()).isZero();
                assertThat(run.out()).containsPattern("overlap +yes +ok")
                        .containsPattern("removed namespace distlock_check_[0-9a-f]{8} from zk://127.0.0.1:\\d+\\?sessionTimeout=2s \\(\\d+ entries\\)");
                assertThat(tree(zk, "/")).as("every node outside the run's namespace, with its data").isEqualTo(before);
                assertThat(held.isValid()).isTrue();
                held.close();
            } finally {
                zk.close();
            }
        }
    }

    @Test
    void aRunOnTheUsersDatabaseLeavesEveryOtherTableAsItWas() throws Exception {
        try (H2Server users = H2Server.launch(); Connection sql = DriverManager.getConnection(users.jdbcUrl())) {
            try (Statement statement = sql.createStatement()) {
                statement.execute("CREATE TABLE orders (id INT PRIMARY KEY, state VARCHAR(20))");
                statement.execute("INSERT INTO orders VALUES (1, 'paid'), (2, 'shipped')");
            }
            try (LockClient application = LockClients.open(users.jdbcUrl(), (String) null)) {
                Lease held = application.getLock("nightly-report").acquire(Duration.ofSeconds(5));
                Map<String, String> before = tables(sql);

                CliRun run = CliRun.of("check", "--target", users.jdbcUrl(), "--time", "40s", "--seed", "31", "--out", out.toString());

                assertThat(run.exit()).as("exit code; output:%n%s", run.out()).isZero();
                assertThat(run.out()).containsPattern("overlap +yes +ok").containsPattern("removed namespace distlock_check_[0-9a-f]{8} from "
                        + "jdbc:h2:tcp://127.0.0.1:\\d+/\\S+ \\(2 entries\\)");
                assertThat(tables(sql)).as("every table outside the run's namespace, with its rows").isEqualTo(before);
                assertThat(held.isValid()).isTrue();
                held.close();
            }
        }
    }

    /** Every table of the database with its rows, as text (the lock table's rows without their changing expiry). */
    private static Map<String, String> tables(Connection sql) throws Exception {
        Map<String, String> tables = new TreeMap<>();
        try (ResultSet names = sql.getMetaData().getTables(null, "PUBLIC", "%", new String[] {"TABLE"})) {
            while (names.next()) {
                String table = names.getString("TABLE_NAME");
                StringBuilder rows = new StringBuilder();
                try (Statement statement = sql.createStatement(); ResultSet row = statement.executeQuery("SELECT * FROM \"" + table + "\"")) {
                    while (row.next()) {
                        rows.append(row.getString(1)).append(';');
                    }
                }
                tables.put(table, rows.toString());
            }
        }
        return tables;
    }

    private static ZooKeeper connect(String connectString) throws Exception {
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeper zk = new ZooKeeper(connectString, 10_000, event -> {
            if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
            }
        });
        assertThat(connected.await(20, TimeUnit.SECONDS)).as("connected to ZooKeeper").isTrue();
        return zk;
    }

    /** Every node below {@code path} (but ZooKeeper's own) with its data. */
    private static Map<String, String> tree(ZooKeeper zk, String path) throws Exception {
        Map<String, String> nodes = new TreeMap<>();
        for (String child : zk.getChildren(path, false)) {
            String full = (path.equals("/") ? "" : path) + "/" + child;
            if (!full.equals("/zookeeper")) {
                byte[] data = zk.getData(full, false, null);
                nodes.put(full, data == null ? "" : new String(data, StandardCharsets.UTF_8));
                nodes.putAll(tree(zk, full));
            }
        }
        return nodes;
    }

    @Test
    void aTargetWhoseBackendCannotRemoveANamespaceIsRefusedBeforeAnythingRuns() {
        CliRun run = CliRun.of("check", "--target", "redlock://127.0.0.1:1,127.0.0.1:2,127.0.0.1:3", "--time", "10s");
        assertThat(run.exit()).isEqualTo(2);
        assertThat(run.err()).contains("cannot remove a namespace").contains("would leave its locks on your server");
        CliRun both = CliRun.of("check", "--target", "redis://127.0.0.1:1", "--backend", "zookeeper");
        assertThat(both.exit()).isEqualTo(2);
        assertThat(both.err()).contains("--target and --backend exclude each other");
    }

    private static TreeSet<String> keys(RedisServer server) {
        TreeSet<String> keys = new TreeSet<>();
        for (Object key : (List<?>) Resp.call(server.port(), "KEYS", "*")) {
            keys.add(String.valueOf(key));
        }
        return keys;
    }

    private static Map<String, Object> dumps(RedisServer server, List<String> keys) {
        Map<String, Object> dumps = new HashMap<>();
        for (String key : keys) {
            dumps.put(key, String.valueOf(Resp.call(server.port(), "TYPE", key)) + ":" + String.valueOf(key.startsWith("cart")
                    ? Resp.call(server.port(), "HGETALL", key) : Resp.call(server.port(), "GET", key)));
        }
        return dumps;
    }
}
