package io.distlock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.LockClients;
import io.distlock.redis.testing.RedisServer;
import io.distlock.spi.LockBackendProvider;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** {@code distlock doctor} on real redis-servers: the findings, the text and JSON forms, and the exit codes. */
class DoctorCommandTest {
    @Test
    void anEvictingRedisIsUnsafeWithTheFixAndExitsTwo() {
        try (RedisServer redis = RedisServer.launch("--maxmemory", "10mb", "--maxmemory-policy", "allkeys-lru")) {
            CliRun run = CliRun.of("doctor", "--target", redis.uri());
            assertThat(run.exit()).isEqualTo(2);
            assertThat(run.out()).contains("UNSAFE   redis.eviction").contains("fix: maxmemory-policy noeviction")
                    .contains("RISKY    redis.persistence").contains("verdict: UNSAFE (exit 2): 1 unsafe, 1 risky, 0 unknown, 4 ok");
        }
    }

    @Test
    void aRedisWithoutPersistenceIsRiskyAndAWellConfiguredOneIsOkInJson() {
        try (RedisServer bare = RedisServer.launch("--maxmemory-policy", "noeviction");
                RedisServer good = RedisServer.launch("--maxmemory-policy", "noeviction", "--appendonly", "yes")) {
            assertThat(CliRun.of("doctor", "--target", bare.uri()).exit()).isEqualTo(1);
            CliRun ok = CliRun.of("doctor", "--target", good.uri(), "--backend", "redis", "--format", "json");
            assertThat(ok.exit()).isZero();
            assertThat(ok.out()).startsWith("{\"target\":").contains("\"backend\":\"redis\"", "\"exitCode\":0",
                    "{\"check\":\"redis.eviction\",\"severity\":\"ok\"", "{\"check\":\"redis.persistence\",\"severity\":\"ok\"");
        }
    }

    @Test
    void badOptionsAndTargetsWithoutADoctorExitTwoAndSaySo() {
        CliRun format = CliRun.of("doctor", "--target", "redis://127.0.0.1:1", "--format", "yaml");
        assertThat(format.exit()).isEqualTo(2);
        assertThat(format.err()).contains("--format must be text or json");
        CliRun wrongBackend = CliRun.of("doctor", "--target", "redis://127.0.0.1:1", "--backend", "zookeeper");
        assertThat(wrongBackend.exit()).isEqualTo(2);
        assertThat(wrongBackend.err()).contains("is a redis target, not zookeeper");
        CliRun both = CliRun.of("doctor", "--checklist", "--target", "redis://127.0.0.1:1");
        assertThat(both.exit()).isEqualTo(2);
        assertThat(both.err()).contains("--checklist lists every check and examines no server");
        CliRun neither = CliRun.of("doctor");
        assertThat(neither.exit()).isEqualTo(2);
        assertThat(neither.err()).contains("--target");
        CliRun unreachable = CliRun.of("doctor", "--target", "redis://127.0.0.1:" + io.distlock.servers.FreePorts.next());
        assertThat(unreachable.exit()).isEqualTo(2);
        assertThat(unreachable.err()).contains("could not read");
    }

    @Test
    void theProductionChecklistPageIsWhatTheChecklistOptionPrints() throws Exception {
        CliRun run = CliRun.of("doctor", "--checklist");
        assertThat(run.exit()).isZero();
        for (LockBackendProvider provider : LockClients.providers()) {
            assertThat(run.out()).contains("## " + provider.id());
            provider.doctorChecks().forEach(check -> assertThat(run.out()).contains("**`" + check.id() + "`**"));
        }
        Path page = Path.of("..", "docs", "production-checklist.md");
        Path printed = Files.writeString(Path.of("target", "production-checklist.md"), run.out());
        assertThat(Files.exists(page) ? Files.readString(page) : "").as("docs/production-checklist.md is stale: run ./distlock doctor "
                + "--checklist > docs/production-checklist.md (or copy %s)", printed.toAbsolutePath()).isEqualTo(run.out());
    }
}
