package io.distlock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.redis.testing.RedisServer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code distlock doctor} on real redis-servers: the findings, the text and JSON forms, and the exit codes. */
class DoctorCommandTest {
    private record Run(int exit, String out, String err) {}

    private static Run run(String... args) {
        PrintStream originalOut = System.out;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        StringWriter err = new StringWriter();
        try {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            CommandLine commandLine = DistlockCommand.newCommandLine();
            commandLine.setErr(new PrintWriter(err, true));
            int exit = commandLine.execute(args);
            return new Run(exit, out.toString(StandardCharsets.UTF_8), err.toString());
        } finally {
            System.setOut(originalOut);
        }
    }

    @Test
    void anEvictingRedisIsUnsafeWithTheFixAndExitsTwo() {
        try (RedisServer redis = RedisServer.launch("--maxmemory", "10mb", "--maxmemory-policy", "allkeys-lru")) {
            Run run = run("doctor", "--target", redis.uri());
            assertThat(run.exit()).isEqualTo(2);
            assertThat(run.out()).contains("UNSAFE   redis.eviction").contains("fix: maxmemory-policy noeviction")
                    .contains("RISKY    redis.persistence").contains("verdict: UNSAFE (exit 2): 1 unsafe, 1 risky, 0 unknown, 2 ok");
        }
    }

    @Test
    void aRedisWithoutPersistenceIsRiskyAndAWellConfiguredOneIsOkInJson() {
        try (RedisServer bare = RedisServer.launch("--maxmemory-policy", "noeviction");
                RedisServer good = RedisServer.launch("--maxmemory-policy", "noeviction", "--appendonly", "yes")) {
            assertThat(run("doctor", "--target", bare.uri()).exit()).isEqualTo(1);
            Run ok = run("doctor", "--target", good.uri(), "--backend", "redis", "--format", "json");
            assertThat(ok.exit()).isZero();
            assertThat(ok.out()).startsWith("{\"target\":").contains("\"backend\":\"redis\"", "\"exitCode\":0",
                    "{\"check\":\"redis.eviction\",\"severity\":\"ok\"", "{\"check\":\"redis.persistence\",\"severity\":\"ok\"");
        }
    }

    @Test
    void badOptionsAndTargetsWithoutADoctorExitTwoAndSaySo() {
        Run format = run("doctor", "--target", "redis://127.0.0.1:1", "--format", "yaml");
        assertThat(format.exit()).isEqualTo(2);
        assertThat(format.err()).contains("--format must be text or json");
        Run wrongBackend = run("doctor", "--target", "redis://127.0.0.1:1", "--backend", "zookeeper");
        assertThat(wrongBackend.exit()).isEqualTo(2);
        assertThat(wrongBackend.err()).contains("is a redis target, not zookeeper");
        Run noDoctor = run("doctor", "--target", "zk://127.0.0.1:1");
        assertThat(noDoctor.exit()).isEqualTo(2);
        assertThat(noDoctor.err()).contains("zookeeper backend has no doctor yet");
        Run unreachable = run("doctor", "--target", "redis://127.0.0.1:" + io.distlock.servers.FreePorts.next());
        assertThat(unreachable.exit()).isEqualTo(2);
        assertThat(unreachable.err()).contains("could not read");
    }
}
