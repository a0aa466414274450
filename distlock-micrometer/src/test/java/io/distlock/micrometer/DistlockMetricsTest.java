package io.distlock.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.Lease;
import io.distlock.redis.RedisLockClient;
import io.distlock.redis.testing.RedisServerExtension;
import io.distlock.servers.Await;
import io.micrometer.core.instrument.LongTaskTimer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The meters of a Redis client that holds, renews, loses and releases locks on a real redis-server. */
class DistlockMetricsTest {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    private double count(String meter, String tag, String value) {
        var counter = registry.find(meter).tag("distlock.name", "stock").tag(tag, value).counter();
        return counter == null ? 0 : counter.count();
    }

    private int held() {
        LongTaskTimer timer = registry.find("distlock.held").tags("distlock.backend", "redis", "distlock.name", "stock").longTaskTimer();
        return timer == null ? 0 : timer.activeTasks();
    }

    @Test
    void heldLocksRenewalsAndLossesAreMeteredUnderTheNameBeforeTheKey() throws Exception {
        try (RedisLockClient locks = RedisLockClient.builder().uri(redis.server().uri()).leaseTime(Duration.ofSeconds(3))
                .operationTimeout(Duration.ofSeconds(1)).listener(DistlockMetrics.of(registry, "redis")).build();
                RedisLockClient other = RedisLockClient.create(redis.server().uri())) {
            Lease first = locks.getLock("stock:1").acquire();
            Lease second = locks.getLock("stock:2").acquire();
            assertThat(held()).as("both keys count under distlock.name=stock").isEqualTo(2);
            Await.until(Duration.ofSeconds(10), "renewals", () -> count("distlock.lease.renewals", "outcome", "success") >= 2);

            assertThat(other.getLock("stock:1").forceUnlock()).isTrue();
            Await.until(Duration.ofSeconds(10), "the loss", () -> count("distlock.lease.lost", "reason", "FORCE_UNLOCKED") == 1);
            // the watchdog thread tells lost() and then ended(): the held task stops a moment after the count
            Await.until(Duration.ofSeconds(10), "the lost lock's held task to end", () -> held() == 1);

            redis.server().pause(); // a renewal times out (1 s) while the lease (3 s) lasts, is retried, and the lease runs out
            try {
                Await.until(Duration.ofSeconds(10), "the expiry", () -> count("distlock.lease.lost", "reason", "EXPIRED") == 1);
            } finally {
                redis.server().resume();
            }
            assertThat(count("distlock.lease.renewals", "outcome", "failure")).isPositive();
            Await.until(Duration.ofSeconds(10), "the expired lock's held task to end", () -> held() == 0);
            first.close();
            second.close();
            try (Lease again = locks.getLock("stock:3").acquire(Duration.ofSeconds(10))) {
                assertThat(held()).isEqualTo(1);
            }
            assertThat(held()).as("a release ends the held task").isZero();
        }
    }

    @Test
    void badArgumentsAreRefused() {
        assertThatThrownBy(() -> DistlockMetrics.of(null, "redis")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> DistlockMetrics.of(registry, " ")).isInstanceOf(IllegalArgumentException.class);
        assertThat(DistlockMetrics.NAME_BEFORE_FIRST_COLON.apply("job")).isEqualTo("job");
    }
}
