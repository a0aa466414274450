package io.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.Lease;
import io.distlock.LockAcquireTimeoutException;
import io.distlock.redis.RedisLockClient;
import io.distlock.LockClient;
import io.distlock.redis.testing.RedisServer;
import io.distlock.spring.actuate.DoctorTarget;
import io.distlock.redis.testing.RedisServerExtension;
import io.distlock.spring.actuate.DistlocksEndpoint;
import io.distlock.spring.autoconfigure.DistlockActuatorAutoConfiguration;
import io.distlock.spring.autoconfigure.DistlockAutoConfiguration;
import io.distlock.spring.autoconfigure.WithLockAutoConfiguration;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Metrics, the distlocks endpoint and the health indicator, with @WithLock on a real bean and a real redis-server. */
class ObservabilityTest {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Configuration(proxyBeanMethods = false)
    static class Meters {
        @Bean
        SimpleMeterRegistry meterRegistry() {
            return new SimpleMeterRegistry();
        }

        @Bean
        ObservationRegistry observationRegistry(MeterRegistry meters) {
            ObservationRegistry registry = ObservationRegistry.create();
            registry.observationConfig().observationHandler(new DefaultMeterObservationHandler(meters));
            return registry;
        }
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DistlockAutoConfiguration.class, WithLockAutoConfiguration.class,
                    DistlockActuatorAutoConfiguration.class))
            .withUserConfiguration(WithLockTest.ShopConfiguration.class, Meters.class)
            .withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.server().port());

    private static ShopService shop(ApplicationContext context) {
        ShopService shop = context.getBean(ShopService.class);
        shop.self(shop);
        return shop;
    }

    private static long acquisitions(ApplicationContext context, String name, String outcome) {
        Timer timer = context.getBean(MeterRegistry.class).find("distlock.acquire")
                .tags("distlock.backend", "redis", "distlock.name", name, "outcome", outcome).timer();
        return timer == null ? 0 : timer.count();
    }

    @Test
    void theTemplatesAcquisitionsAreObservedLikeTheAnnotationsByTheNameBeforeItsKey() throws Exception {
        runner.run(context -> {
            LockTemplate locks = context.getBean(LockTemplate.class);
            Long first = locks.execute("invoice:inv-1", Lease::fencingToken);
            Long second = locks.execute("invoice:inv-2", Lease::fencingToken);
            assertThat(first).isPositive();
            assertThat(second).isPositive();
            assertThat(acquisitions(context, "invoice", "acquired")).isEqualTo(2);
            assertThat(context.getBean(MeterRegistry.class).find("distlock.acquire").tag("distlock.name", "invoice:inv-1").timer())
                    .as("the key never becomes a tag").isNull();
            try (RedisLockClient other = RedisLockClient.create(redis.server().uri()); Lease busy = other.getLock("invoice:inv-3").acquire()) {
                assertThat(locks.executeIfFree("invoice:inv-3", lease -> "ran")).isEmpty();
            }
            assertThat(acquisitions(context, "invoice", "skipped")).isEqualTo(1);
        });
    }

    @Test
    void everyAcquisitionIsObservedByNameAndOutcomeNeverByKey() throws Exception {
        runner.run(context -> {
            ShopService shop = shop(context);
            shop.buy(new ShopService.Order("sku-1", 1));
            shop.buy(new ShopService.Order("sku-2", 1));
            assertThat(acquisitions(context, "stock", "acquired")).isEqualTo(2);
            assertThat(context.getBean(MeterRegistry.class).find("distlock.acquire").tag("distlock.name", "stock:sku-1").timer())
                    .as("the key never becomes a tag").isNull();
            try (RedisLockClient other = RedisLockClient.create(redis.server().uri()); Lease busy = other.getLock("busy").acquire()) {
                assertThatThrownBy(shop::throwWhenBusy).isInstanceOf(LockAcquireTimeoutException.class);
                shop.skipWhenBusy();
            }
            assertThat(acquisitions(context, "busy", "timeout")).isEqualTo(1);
            assertThat(acquisitions(context, "busy", "skipped")).isEqualTo(1);
            assertThat(context.getBean(MeterRegistry.class).find("distlock.held").tag("distlock.backend", "redis").longTaskTimer())
                    .as("the client's own meters (DistlockMetrics)").isNotNull();
        });
    }

    @Test
    @SuppressWarnings("unchecked")
    void theEndpointListsWhatThisInstanceHoldsNow() throws Exception {
        runner.withPropertyValues("management.endpoints.web.exposure.include=distlocks").run(context -> {
            ShopService shop = shop(context);
            DistlocksEndpoint endpoint = context.getBean(DistlocksEndpoint.class);
            assertThat((List<?>) endpoint.locks().get("locks")).isEmpty();
            CompletableFuture<String> held = shop.async("e1");
            List<Map<String, Object>> locks = (List<Map<String, Object>>) endpoint.locks().get("locks");
            assertThat(locks).singleElement().satisfies(lock -> {
                assertThat(lock).containsEntry("name", "async:e1").containsEntry("backend", "redis").containsEntry("valid", true)
                        .containsEntry("renewalFailures", 0);
                assertThat((Long) lock.get("fencingToken")).isPositive();
                assertThat((Long) lock.get("leaseLeftMillis")).isPositive();
            });
            shop.pending().complete("done");
            held.get(10, TimeUnit.SECONDS);
            assertThat((List<?>) endpoint.locks().get("locks")).isEmpty();
        });
    }

    @Test
    void healthIsUpWhileRedisAnswersAndDownWhileItDoesNot() {
        runner.withPropertyValues("distlock.operation-timeout=1s").run(context -> {
            Object indicator = context.getBean("distlockHealthIndicator");
            assertThat(status(indicator)).isEqualTo("UP");
            redis.server().pause();
            try {
                assertThat(status(indicator)).isEqualTo("DOWN");
            } finally {
                redis.server().resume();
            }
            assertThat(status(indicator)).isEqualTo("UP");
        });
    }

    @Test
    @SuppressWarnings("unchecked")
    void withTheDoctorEnabledAnEvictingRedisIsDownWithTheFindingAndWithoutItUp() throws Exception {
        try (RedisServer evicting = RedisServer.launch("--maxmemory", "10mb", "--maxmemory-policy", "allkeys-lru")) {
            ApplicationContextRunner onEvicting = runner.withPropertyValues("spring.data.redis.port=" + evicting.port());
            onEvicting.withPropertyValues("distlock.doctor.enabled=true").run(context -> {
                Object indicator = context.getBean("distlockHealthIndicator");
                assertThat(status(indicator)).isEqualTo("DOWN");
                Map<String, Object> doctor = (Map<String, Object>) details(indicator).get("doctor");
                assertThat(doctor).containsEntry("exitCode", 2).containsKey("examinedAt").doesNotContainKey("redis.version");
                assertThat((Map<String, Object>) doctor.get("redis.eviction")).containsEntry("severity", "unsafe")
                        .hasEntrySatisfying("fix", fix -> assertThat((String) fix).contains("noeviction"));
            });
            onEvicting.run(context -> {
                Object indicator = context.getBean("distlockHealthIndicator");
                assertThat(status(indicator)).as("the doctor is opt-in").isEqualTo("UP");
                assertThat(details(indicator)).doesNotContainKey("doctor");
            });
        }
        runner.withPropertyValues("distlock.doctor.enabled=true").run(context -> {
            Object indicator = context.getBean("distlockHealthIndicator");
            assertThat(status(indicator)).as("risky findings (no persistence) are details, not DOWN").isEqualTo("UP");
            Map<String, Object> doctor = (Map<String, Object>) details(indicator).get("doctor");
            assertThat((Map<String, Object>) doctor.get("redis.persistence")).containsEntry("severity", "risky");
            assertThat(doctor).containsEntry("exitCode", 1);
        });
    }

    @Test
    void withTheApplicationsOwnLockClientTheDoctorNeedsItsTargetOrStartupSaysSo() throws Exception {
        try (RedisServer evicting = RedisServer.launch("--maxmemory", "10mb", "--maxmemory-policy", "allkeys-lru")) {
            ApplicationContextRunner own = runner.withPropertyValues("distlock.doctor.enabled=true")
                    .withBean("applicationsClient", LockClient.class, () -> RedisLockClient.create(evicting.uri()));
            own.run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                    .hasMessageContaining("define a DoctorTarget bean"));
            own.withBean(DoctorTarget.class, () -> new DoctorTarget(evicting.uri(), io.distlock.OpenOptions.defaults())).run(context -> {
                Object indicator = context.getBean("distlockHealthIndicator");
                assertThat(status(indicator)).as("the application's target is examined: it evicts").isEqualTo("DOWN");
            });
        }
    }

    /** health().getDetails(), by reflection (see {@link #status}). */
    @SuppressWarnings("unchecked")
    private static Map<String, Object> details(Object indicator) throws Exception {
        Object health = indicator.getClass().getMethod("health").invoke(indicator);
        return (Map<String, Object>) health.getClass().getMethod("getDetails").invoke(health);
    }

    /** health().getStatus().getCode(), by reflection: Boot 3.5 and 4 have the same methods on different classes. */
    private static String status(Object indicator) throws Exception {
        Object health = indicator.getClass().getMethod("health").invoke(indicator);
        Object status = health.getClass().getMethod("getStatus").invoke(health);
        return (String) status.getClass().getMethod("getCode").invoke(status);
    }

    @Test
    void theAcquireTimeoutOfAnUnreachableBackendIsObservedAsAnError() {
        runner.withPropertyValues("distlock.operation-timeout=1s").run(context -> {
            ShopService shop = shop(context);
            redis.server().pause();
            try {
                assertThatThrownBy(shop::throwWhenBusy).isInstanceOf(io.distlock.BackendUnavailableException.class);
            } finally {
                redis.server().resume();
            }
            assertThat(acquisitions(context, "busy", "error")).isEqualTo(1);
        });
    }
}
