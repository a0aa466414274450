package io.distlock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.redis.RedisLockClient;
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
