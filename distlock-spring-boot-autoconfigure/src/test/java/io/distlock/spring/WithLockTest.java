package io.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.Lease;
import io.distlock.LockAcquireTimeoutException;
import io.distlock.LockClient;
import io.distlock.redis.RedisLockClient;
import io.distlock.redis.testing.RedisServerExtension;
import io.distlock.servers.Await;
import io.distlock.spring.ShopService.Order;
import io.distlock.spring.autoconfigure.DistlockAutoConfiguration;
import io.distlock.spring.autoconfigure.WithLockAutoConfiguration;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.EnableTransactionManagement;

/** @WithLock on a real bean, with a real transaction manager, against a real redis-server. */
class WithLockTest {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static RedisLockClient other;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DistlockAutoConfiguration.class, WithLockAutoConfiguration.class))
            .withUserConfiguration(ShopConfiguration.class)
            .withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.server().port());

    @BeforeAll
    static void connectOther() {
        other = RedisLockClient.create(redis.server().uri()); // another instance of the application
    }

    @AfterAll
    static void closeOther() {
        other.close();
    }

    @Test
    void aLeaseTimeOnTheAnnotationKeepsTheClientsOtherDefaultsSuchAsLocalHandoffs() {
        runner.withPropertyValues("distlock.local-handoffs=8").run(context -> {
            // a grant with another call waiting reserves the tokens of 8 handoffs: the key keeps the range's last token
            try (io.lettuce.core.RedisClient raw = io.lettuce.core.RedisClient.create(redis.server().uri());
                    var connection = raw.connect()) {
                String key = other.keys().lockKey("cohort");
                java.util.List<long[]> seen = ContendedCalls.secondAndThird(
                        work -> context.getBean(ShopService.class).underItsOwnLease(work),
                        () -> {
                            String value = connection.sync().get(key);
                            return new long[] {io.distlock.spring.LockContext.currentLease().fencingToken(),
                                    Long.parseLong(value.substring(0, value.indexOf(':')))};
                        });
                assertThat(seen.get(0)[1]).as("the second call's grant, with the third waiting").isEqualTo(seen.get(0)[0] + 8);
            }
        });
    }

    @Configuration(proxyBeanMethods = false)
    @EnableTransactionManagement
    static class ShopConfiguration {
        @Bean
        DataSource dataSource() {
            return new DriverManagerDataSource("jdbc:h2:mem:withlock-" + System.nanoTime() + ";DB_CLOSE_DELAY=-1");
        }

        @Bean
        JdbcTemplate jdbcTemplate(DataSource dataSource) {
            JdbcTemplate jdbc = new JdbcTemplate(dataSource);
            jdbc.execute("CREATE TABLE orders(id VARCHAR(64) PRIMARY KEY)");
            return jdbc;
        }

        @Bean
        PlatformTransactionManager transactionManager(DataSource dataSource) {
            return new DataSourceTransactionManager(dataSource);
        }

        @Bean
        String skuSuffix() {
            return "eu";
        }

        @Bean
        ShopService shopService(JdbcTemplate jdbcTemplate, LockClient locks) {
            return new ShopService(jdbcTemplate, locks);
        }
    }

    /** A job interface whose method carries the annotation; two beans implement it. */
    public interface NamedJob {
        @WithLock
        String lockName();
    }

    public static class FirstJob implements NamedJob {
        @Override
        public String lockName() {
            return LockContext.currentLease().lockName();
        }
    }

    public static class SecondJob implements NamedJob {
        @Override
        public String lockName() {
            return LockContext.currentLease().lockName();
        }
    }

    @Test
    void theDefaultNameIsTheBeansClassEvenWhenTheAnnotatedMethodIsOnAnInterface() {
        runner.withBean("first", NamedJob.class, FirstJob::new).withBean("second", NamedJob.class, SecondJob::new).run(context -> {
            assertThat(((NamedJob) context.getBean("first")).lockName()).isEqualTo("FirstJob.lockName");
            assertThat(((NamedJob) context.getBean("second")).lockName()).isEqualTo("SecondJob.lockName");
        });
    }

    private static ShopService shop(org.springframework.context.ApplicationContext context) {
        ShopService shop = context.getBean(ShopService.class);
        shop.self(shop);
        return shop;
    }

    @Test
    void callsOnOneKeyExcludeEachOtherAndTheNameIsNameColonKey() throws Exception {
        runner.run(context -> {
            ShopService shop = shop(context);
            ExecutorService pool = Executors.newFixedThreadPool(6);
            try {
                List<Future<String>> calls = new ArrayList<>();
                for (int i = 0; i < 60; i++) {
                    calls.add(pool.submit(() -> shop.buy(new Order("sku-1", 1))));
                }
                for (Future<String> call : calls) {
                    assertThat(call.get(60, TimeUnit.SECONDS)).isEqualTo("stock:sku-1");
                }
            } finally {
                pool.shutdownNow();
            }
            assertThat(shop.maxInside()).as("never two callers inside at once").isEqualTo(1);
        });
    }

    @Test
    void theDefaultNameIsClassDotMethodAndKeysReachArgumentsByPositionAndBeans() {
        runner.run(context -> assertThat(shop(context).defaultName("sku-9")).isEqualTo("ShopService.defaultName:sku-9-eu"));
    }

    @Test
    void aLockHeldElsewhereThrowsOrSkipsWithoutRunningTheMethod() throws Exception {
        runner.run(context -> {
            ShopService shop = shop(context);
            try (Lease elsewhere = other.getLock("busy").acquire(Duration.ofSeconds(5))) {
                assertThatThrownBy(shop::throwWhenBusy).isInstanceOf(LockAcquireTimeoutException.class).hasMessageContaining("busy");
                assertThat(shop.skipWhenBusy()).isNull();
                assertThat(shop.skipOptional()).isEmpty();
                assertThat(shop.skipInt()).isZero();
                assertThat(shop.skipFuture().get(5, TimeUnit.SECONDS)).isNull();
                assertThat(shop.runs()).as("no method ran").isZero();
            }
            assertThat(shop.throwWhenBusy()).isEqualTo("ran");
            assertThat(shop.skipOptional()).contains("ran");
        });
    }

    @Test
    void annotationsWithoutAWaitWaitForDistlockWaitTime() throws Exception {
        runner.withPropertyValues("distlock.wait-time=20s").run(context -> {
            ShopService shop = shop(context);
            Lease elsewhere = other.getLock("busy").acquire(Duration.ofSeconds(5));
            CompletableFuture<String> waiting = CompletableFuture.supplyAsync(shop::skipWhenBusy);
            Await.until(Duration.ofSeconds(10), "the call to wait", () -> other.getLock("busy").isLocked());
            assertThat(waiting).as("waiting, not skipped").isNotDone();
            elsewhere.close();
            assertThat(waiting.get(30, TimeUnit.SECONDS)).isEqualTo("ran");
        });
    }

    @Test
    void minHoldKeepsTheLockAfterAFastMethodSoAnotherInstanceSkipsTheSamePeriod() throws Exception {
        runner.run(context -> {
            ShopService shop = shop(context);
            shop.quickJob();
            assertThat(shop.runs()).isEqualTo(1);
            assertThat(other.getLock("job").isLocked()).as("still held after the method returned").isTrue();
            assertThat(other.getLock("job").tryAcquire(Duration.ZERO)).as("another instance's run of the job").isEmpty();
            Await.until(Duration.ofSeconds(20), "the min-hold release", () -> !other.getLock("job").isLocked());
        });
    }

    @Test
    void aJobInsideItsMinHoldWhenTheApplicationStopsStaysHeldOnTheServerUntilTheMinHoldEnds() throws Exception {
        long[] returned = new long[1];
        runner.run(context -> {
            shop(context).nightlyJob();
            returned[0] = System.nanoTime();
        }); // the context closes here, 5 s before the job's minHold ends
        boolean inTime = System.nanoTime() - returned[0] < TimeUnit.SECONDS.toNanos(4); // else a loaded machine took the 5 s
        boolean held = other.getLock("nightly").isLocked();
        if (inTime) {
            assertThat(held).as("held after the application stopped, inside the job's minHold: another instance must not run it "
                    + "yet (before: released when the context closed)").isTrue();
            assertThat(other.getLock("nightly").tryAcquire(Duration.ZERO)).isEmpty();
        }
        Await.until(Duration.ofSeconds(20), "the server frees it when the minHold ends", () -> !other.getLock("nightly").isLocked());
    }

    @Test
    void theTransactionCommitsBeforeTheLockIsReleased() {
        runner.run(context -> {
            ShopService shop = shop(context);
            shop.record("order-1");
            assertThat(shop.events()).containsExactly("commit, lock held: true");
            assertThat(other.getLock("orders:order-1").isLocked()).as("released after the commit").isFalse();
            assertThat(context.getBean(JdbcTemplate.class).queryForObject("SELECT COUNT(*) FROM orders", Integer.class)).isEqualTo(1);
        });
    }

    @Test
    void aNestedCallOnTheSameNameReentersWithTheSameToken() {
        runner.run(context -> {
            ShopService shop = shop(context);
            assertThat(shop.outer()).isPositive();
            assertThat(shop.events()).containsExactly("outer again: true");
            assertThatThrownBy(LockContext::currentLease).isInstanceOf(IllegalStateException.class).hasMessageContaining("no @WithLock");
            assertThat(LockContext.findCurrentLease()).isEmpty();
        });
    }

    @Test
    void aFutureHoldsTheLockUntilItCompletesWhateverThreadsAreInvolved() throws Exception {
        runner.run(context -> {
            ShopService shop = shop(context);
            CompletableFuture<String> result = shop.async("a1");
            assertThat(other.getLock("async:a1").isLocked()).isTrue();
            LockClient locks = context.getBean(LockClient.class);
            assertThat(locks.getLock("async:a1").tryAcquire(Duration.ZERO)).as("not even the calling thread re-enters it").isEmpty();
            assertThat(result).isNotDone();

            CompletableFuture.runAsync(() -> shop.pending().complete("done")).get(10, TimeUnit.SECONDS);
            assertThat(result.get(10, TimeUnit.SECONDS)).isEqualTo("done under async:a1");
            assertThat(other.getLock("async:a1").isLocked()).as("released before the caller saw the result").isFalse();
        });
    }

    @Test
    void reentrancyStopsAtAnAsyncBoundaryWithAClearErrorNeverAWaitForItself() {
        runner.run(context -> {
            ShopService shop = shop(context);
            assertThatThrownBy(shop::syncCallingAsync).as("an async method on a name its thread holds: it would wait for itself")
                    .isInstanceOf(IllegalStateException.class);
            assertThat(other.getLock("boundary").isLocked()).isFalse();

            CompletableFuture<String> result = shop.asyncCallingSync();
            assertThatThrownBy(() -> result.get(10, TimeUnit.SECONDS)).as("another thread is another holder: no reentrancy")
                    .hasCauseInstanceOf(LockAcquireTimeoutException.class);
            Await.until(Duration.ofSeconds(10), "the outer lease released once its future failed",
                    () -> !other.getLock("boundary2").isLocked());
        });
    }

    @Test
    void aCallerThatCancelsTheReturnedFutureDoesNotFreeTheLockWhileTheWorkStillRuns() throws Exception {
        runner.run(context -> {
            ShopService shop = shop(context);
            CompletableFuture<String> result = shop.async("c1");
            assertThat(result.cancel(true)).isTrue();
            assertThat(other.getLock("async:c1").isLocked()).as("the work goes on, so the lock stays held").isTrue();
            assertThat(other.getLock("async:c1").tryAcquire(Duration.ZERO)).isEmpty();
            CompletableFuture.runAsync(() -> shop.pending().complete("done")).get(10, TimeUnit.SECONDS);
            Await.until(Duration.ofSeconds(10), "released when the work ended", () -> !other.getLock("async:c1").isLocked());
        });
    }

    @Test
    void aSubscriberThatCancelsWhileTheMonoHoldsTheLockReleasesIt() throws Exception {
        runner.run(context -> {
            ShopService shop = shop(context);
            reactor.core.Disposable subscription = shop.reactive("c2").subscribe();
            Await.until(Duration.ofSeconds(10), "the subscription to take the lock", () -> other.getLock("reactive:c2").isLocked());
            subscription.dispose();
            Await.until(Duration.ofSeconds(10), "released on the cancel", () -> !other.getLock("reactive:c2").isLocked());
        });
    }

    @Test
    void aSubscriberThatCancelsWhileTheMonoWaitsForTheLockLeavesNothingHeldWhenTheLockFrees() throws Exception {
        java.util.concurrent.atomic.AtomicInteger started = new java.util.concurrent.atomic.AtomicInteger();
        AcquireObservation counting = (name, backend) -> {
            started.incrementAndGet();
            return AcquireObservation.NONE.start(name, backend);
        };
        runner.withBean(AcquireObservation.class, () -> counting).run(context -> {
            ShopService shop = shop(context);
            Lease held = other.getLock("patient").acquire();
            reactor.core.Disposable subscription = shop.patientMono().subscribe();
            Await.until(Duration.ofSeconds(10), "the subscription waiting for the lock", () -> started.get() == 1);
            subscription.dispose();
            held.close(); // a wait that went on after the cancel would now get the lock, for nobody
            Optional<Lease> next = other.getLock("patient").tryAcquire(Duration.ofSeconds(10));
            assertThat(next).as("free: the cancelled subscription holds nothing").isPresent();
            next.get().close();
            assertThat(shop.reactiveCalls()).as("the method never ran").isZero();
        });
    }

    @Test
    void aMonoTakesTheLockWhenSubscribedAndHoldsItUntilItTerminates() throws Exception {
        runner.run(context -> {
            ShopService shop = shop(context);
            reactor.core.publisher.Mono<String> mono = shop.reactive("r1");
            assertThat(other.getLock("reactive:r1").isLocked()).as("nothing is taken before a subscription").isFalse();
            assertThat(shop.reactiveCalls()).isZero();
            CompletableFuture<String> result = mono.toFuture();
            Await.until(Duration.ofSeconds(10), "the subscription to take the lock", () -> other.getLock("reactive:r1").isLocked());
            assertThat(other.getLock("reactive:r1").tryAcquire(Duration.ZERO)).isEmpty();
            shop.reactiveGate().tryEmitValue("done");
            assertThat(result.get(10, TimeUnit.SECONDS)).isEqualTo("done under reactive:r1");
            Await.until(Duration.ofSeconds(10), "the release", () -> !other.getLock("reactive:r1").isLocked());
            assertThat(shop.reactiveCalls()).isEqualTo(1);
        });
    }

    @Test
    void aBusyLockSkipsAMonoAndFailsAFlux() throws Exception {
        runner.run(context -> {
            ShopService shop = shop(context);
            try (Lease elsewhere = other.getLock("busy").acquire(Duration.ofSeconds(5))) {
                assertThat(shop.skipMono().blockOptional(Duration.ofSeconds(10))).isEmpty();
                assertThatThrownBy(() -> shop.throwFlux().collectList().block(Duration.ofSeconds(10)))
                        .isInstanceOf(LockAcquireTimeoutException.class);
                assertThat(shop.reactiveCalls()).as("no method ran").isZero();
            }
            assertThat(shop.throwFlux().collectList().block(Duration.ofSeconds(10))).containsExactly(1, 2, 3);
            assertThat(other.getLock("busy").isLocked()).isFalse();
        });
    }

    @Test
    void aLostLeaseInterruptsTheMethodWhenAskedTo() throws Exception {
        runner.run(context -> {
            ShopService shop = shop(context);
            CompletableFuture<String> running = CompletableFuture.supplyAsync(shop::runsUntilInterrupted);
            Await.until(Duration.ofSeconds(10), "the method to start", () -> shop.events().contains("started"));
            assertThat(other.getLock("interruptible").forceUnlock()).isTrue();
            assertThat(running.get(30, TimeUnit.SECONDS)).isEqualTo("interrupted after false");
        });
    }

    @Test
    void aNullKeyFailsTheCallWithoutRunningTheMethod() {
        runner.run(context -> {
            ShopService shop = shop(context);
            assertThatThrownBy(() -> shop.nullKey(new Order(null, 1))).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("evaluated to null").hasMessageContaining("ShopService.nullKey");
            assertThat(shop.runs()).isZero();
        });
    }

    @Test
    void aKeyThatFailsNamesTheMethodAndTheExpression() {
        runner.run(context -> assertThatThrownBy(() -> shop(context).brokenKey(new Order("x", 1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("#missing.sku").hasMessageContaining("ShopService.brokenKey"));
    }
}
