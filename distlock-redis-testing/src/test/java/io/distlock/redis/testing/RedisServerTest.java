package io.distlock.redis.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.servers.Await;
import io.distlock.servers.ChildJvm;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class RedisServerTest {

    @Test
    void theEmbeddedBinaryStartsPausesRestartsAndStopsWithoutLeavingAProcess() {
        long pid;
        try (RedisServer server = RedisServer.launch(RedisBinary.embedded())) {
            assertThat(server.port()).isNotEqualTo(6379);
            assertThat(server.ping()).isTrue();
            pid = server.pid().orElseThrow();

            server.pause();
            assertThat(server.ping()).as("a frozen server does not answer").isFalse();
            server.resume();
            Await.until(Duration.ofSeconds(10), "the thawed server answers", server::ping);

            server.kill();
            assertThat(server.isRunning()).isFalse();
            assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)).isFalse();

            server.start();
            assertThat(server.ping()).isTrue();
            pid = server.pid().orElseThrow();
            server.restart();
            assertThat(server.ping()).isTrue();
            pid = server.pid().orElseThrow();
        }
        long finalPid = pid;
        Await.until(Duration.ofSeconds(10), "redis-server " + finalPid + " is gone",
                () -> !ProcessHandle.of(finalPid).map(ProcessHandle::isAlive).orElse(false));
    }

    @Test
    void aServerDiesWithTheJvmThatStartedItEvenOnKillDashNine() throws Exception {
        long serverPid;
        try (ChildJvm jvm = ChildJvm.of(ServerOwner.class).start()) {
            String line = jvm.awaitLine(l -> l.startsWith("PID "), Duration.ofSeconds(60));
            serverPid = Long.parseLong(line.substring(4).trim());
            assertThat(ProcessHandle.of(serverPid).map(ProcessHandle::isAlive).orElse(false)).isTrue();
            jvm.kill(); // SIGKILL: no shutdown hooks run
        }
        Await.until(Duration.ofSeconds(20), "the orphaned redis-server " + serverPid + " is gone",
                () -> !ProcessHandle.of(serverPid).map(ProcessHandle::isAlive).orElse(false));
    }

    /** Child JVM: starts a server, prints its pid, waits to be killed. */
    public static final class ServerOwner {
        public static void main(String[] args) throws Exception {
            RedisServer server = RedisServer.launch();
            System.out.println("PID " + server.pid().orElseThrow());
            System.out.flush();
            Thread.sleep(TimeUnit.MINUTES.toMillis(5));
        }
    }
}
