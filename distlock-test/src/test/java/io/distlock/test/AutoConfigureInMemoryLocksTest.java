package io.distlock.test;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.LockClient;
import io.distlock.spring.LockContext;
import io.distlock.spring.WithLock;
import io.distlock.spring.autoconfigure.DistlockAutoConfiguration;
import io.distlock.spring.autoconfigure.WithLockAutoConfiguration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;

/** A Spring Boot test of an application's @WithLock methods without a server: the in-memory client replaces the starter's. */
@SpringBootTest(classes = AutoConfigureInMemoryLocksTest.App.class, properties = "distlock.redis.uri=redis://127.0.0.1:1")
@AutoConfigureInMemoryLocks
class AutoConfigureInMemoryLocksTest {
    @SpringBootConfiguration
    @ImportAutoConfiguration({DistlockAutoConfiguration.class, WithLockAutoConfiguration.class})
    static class App {
        @Bean
        Jobs jobs() {
            return new Jobs();
        }
    }

    public static class Jobs {
        final CountDownLatch started = new CountDownLatch(1);
        final CompletableFuture<Boolean> interrupted = new CompletableFuture<>();

        public CountDownLatch started() {
            return started;
        }

        public CompletableFuture<Boolean> interrupted() {
            return interrupted;
        }

        @WithLock(name = "report", onFailure = WithLock.OnFailure.SKIP)
        public long report() {
            return LockContext.currentLease().fencingToken();
        }

        @WithLock(name = "long-job", onLost = WithLock.OnLost.INTERRUPT)
        public void longJob() {
            started.countDown();
            try {
                Thread.sleep(TimeUnit.MINUTES.toMillis(1)); // until the lease is lost
                interrupted.complete(false);
            } catch (InterruptedException e) {
                interrupted.complete(true);
            }
        }
    }

    @Autowired
    LockClient lockClient;
    @Autowired
    InMemoryLockServer server;
    @Autowired
    Jobs jobs;

    @Test
    void theApplicationsLockClientIsTheInMemoryOneAndWithLockRunsOnIt() throws Exception {
        assertThat(lockClient.toString()).contains("memory://");
        assertThat(jobs.report()).isPositive();
        try (LockClient otherInstance = server.newClient(); var held = otherInstance.getLock("report").acquire()) {
            assertThat(jobs.report()).as("skipped while another instance holds it").isZero();
        }
    }

    @Test
    void aSimulatedLeaseLossInterruptsAMethodThatAskedForIt() throws Exception {
        CompletableFuture<Void> running = CompletableFuture.runAsync(jobs::longJob);
        assertThat(jobs.started().await(20, TimeUnit.SECONDS)).isTrue();
        assertThat(server.loseLease("long-job")).isTrue();
        assertThat(jobs.interrupted().get(20, TimeUnit.SECONDS)).as("interrupted when the loss was noticed").isTrue();
        running.get(20, TimeUnit.SECONDS);
        assertThat(server.isLocked("long-job")).isFalse();
    }
}
