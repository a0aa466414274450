package io.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.Lease;
import io.distlock.LockAcquireTimeoutException;
import io.distlock.redis.RedisLockClient;
import io.distlock.redis.testing.RedisServerExtension;
import io.distlock.servers.Await;
import io.distlock.spring.autoconfigure.DistlockAutoConfiguration;
import io.distlock.spring.autoconfigure.WithLockAutoConfiguration;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** {@link LockTemplate} as the starter makes it, against a real redis-server; another client stands for another instance. */
class LockTemplateTest {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static RedisLockClient other;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DistlockAutoConfiguration.class, WithLockAutoConfiguration.class))
            .withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.server().port());

    @BeforeAll
    static void connectOther() {
        other = RedisLockClient.create(redis.server().uri());
    }

    @AfterAll
    static void closeOther() {
        other.close();
    }

    @Test
    void aLeaseTimeInTheSettingsKeepsTheClientsOtherDefaultsSuchAsLocalHandoffs() {
        runner.withPropertyValues("distlock.local-handoffs=8").run(context -> {
            // a grant with another call waiting reserves the tokens of 8 handoffs: the key keeps the range's last token
            try (io.lettuce.core.RedisClient raw = io.lettuce.core.RedisClient.create(redis.server().uri());
                    var connection = raw.connect()) {
                String key = other.keys().lockKey("cohort");
                java.util.List<long[]> seen = ContendedCalls.secondAndThird(
                        work -> context.getBean(LockTemplate.class).execute("cohort", LockSettings.defaults().leaseTime(Duration.ofSeconds(7)).waitTime(Duration.ofSeconds(30)),
                            lease -> work.get()),
                        () -> {
                            String value = connection.sync().get(key);
                            return new long[] {io.distlock.spring.LockContext.currentLease().fencingToken(),
                                    Long.parseLong(value.substring(0, value.indexOf(':')))};
                        });
                assertThat(seen.get(0)[1]).as("the second call's grant, with the third waiting").isEqualTo(seen.get(0)[0] + 8);
            }
        });
    }

    @Test
    void executeRunsTheWorkHoldingTheLockWithItsLeaseCurrentAndReleasesItAfter() {
        runner.run(context -> {
            LockTemplate locks = context.getBean(LockTemplate.class);
            long token = locks.execute("stock:sku-1", lease -> {
                assertThat(other.getLock("stock:sku-1").isLocked()).as("held while the work runs").isTrue();
                assertThat(LockContext.currentLease()).isSameAs(lease);
                return lease.fencingToken();
            });
            assertThat(token).isPositive();
            assertThat(other.getLock("stock:sku-1").isLocked()).as("released after").isFalse();
            assertThat(LockContext.findCurrentLease()).isEmpty();
        });
    }

    @Test
    void workThatThrowsReleasesTheLockAndTheExceptionReachesTheCaller() {
        runner.run(context -> {
            LockTemplate locks = context.getBean(LockTemplate.class);
            assertThatThrownBy(() -> locks.execute("stock:sku-2", lease -> {
                throw new IllegalStateException("out of stock");
            })).isInstanceOf(IllegalStateException.class).hasMessage("out of stock");
            assertThat(other.getLock("stock:sku-2").isLocked()).isFalse();
        });
    }

    @Test
    void aLockHeldElsewhereIsSkippedByExecuteIfFreeAndTimesOutExecuteAfterItsWait() throws Exception {
        runner.run(context -> {
            LockTemplate locks = context.getBean(LockTemplate.class);
            try (Lease held = other.getLock("report").acquire()) {
                int[] runs = {0};
                assertThat(locks.executeIfFree("report", lease -> ++runs[0])).isEmpty();
                assertThatThrownBy(() -> locks.execute("report", LockSettings.defaults().waitTime(Duration.ofMillis(200)), lease -> ++runs[0]))
                        .isInstanceOf(LockAcquireTimeoutException.class).hasMessageContaining("report");
                assertThat(runs[0]).as("the work never ran").isZero();
            }
            assertThat(locks.executeIfFree("report", lease -> "ran")).contains("ran");
        });
    }

    @Test
    void minHoldKeepsTheLockAfterTheWorkAndAfterTheApplicationStops() {
        long[] returned = new long[1];
        runner.run(context -> {
            Optional<String> ran = context.getBean(LockTemplate.class).executeIfFree("nightly", LockSettings.defaults().minHold(Duration.ofSeconds(5)),
                    lease -> "ran");
            assertThat(ran).contains("ran");
            returned[0] = System.nanoTime();
        });
        if (System.nanoTime() - returned[0] < TimeUnit.SECONDS.toNanos(4)) { // else a loaded machine took the 5 s
            assertThat(other.getLock("nightly").isLocked()).as("held inside its minHold after the context closed").isTrue();
        }
        Await.until(Duration.ofSeconds(20), "the server frees it when the minHold ends", () -> !other.getLock("nightly").isLocked());
    }

    @Test
    void settingsRefuseWhatCannotBeMeant() {
        assertThatThrownBy(() -> LockSettings.defaults().waitTime(Duration.ofSeconds(-1))).hasMessageContaining("waitTime");
        assertThatThrownBy(() -> LockSettings.defaults().minHold(null)).hasMessageContaining("minHold");
        assertThatThrownBy(() -> LockSettings.defaults().leaseTime(Duration.ZERO)).hasMessageContaining("leaseTime");
        assertThat(LockTemplate.tagOf("stock:sku-1")).isEqualTo("stock");
        assertThat(LockTemplate.tagOf("report")).isEqualTo("report");
    }
}
