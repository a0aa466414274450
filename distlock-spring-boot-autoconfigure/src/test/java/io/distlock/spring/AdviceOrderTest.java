package io.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.LockClient;
import io.distlock.redis.testing.RedisServerExtension;
import io.distlock.spring.autoconfigure.DistlockAutoConfiguration;
import io.distlock.spring.autoconfigure.WithLockAutoConfiguration;
import javax.sql.DataSource;
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

/**
 * distlock.advice-order places the @WithLock advice among other advice: here @Transactional's, at order 100. Outside
 * it (a lower order), the lock is still held when the transaction commits; inside it (a higher order), the lock is
 * released before the commit, which is what the default order exists to prevent.
 */
class AdviceOrderTest {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DistlockAutoConfiguration.class, WithLockAutoConfiguration.class))
            .withUserConfiguration(TransactionsAtOrder100.class)
            .withPropertyValues("distlock.redis.uri=" + redis.server().uri());

    @Configuration(proxyBeanMethods = false)
    @EnableTransactionManagement(order = 100)
    static class TransactionsAtOrder100 {
        @Bean
        DataSource dataSource() {
            return new DriverManagerDataSource("jdbc:h2:mem:advice-order-" + System.nanoTime() + ";DB_CLOSE_DELAY=-1");
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
        ShopService shopService(JdbcTemplate jdbcTemplate, LockClient locks) {
            return new ShopService(jdbcTemplate, locks);
        }
    }

    @Test
    void aLowerAdviceOrderThanTheTransactionsHoldsTheLockAcrossTheCommit() {
        runner.withPropertyValues("distlock.advice-order=50").run(context -> {
            context.getBean(ShopService.class).record("order-1");
            assertThat(context.getBean(ShopService.class).events()).containsExactly("commit, lock held: true");
        });
    }

    @Test
    void aHigherAdviceOrderThanTheTransactionsReleasesTheLockBeforeTheCommit() {
        runner.withPropertyValues("distlock.advice-order=200").run(context -> {
            context.getBean(ShopService.class).record("order-1");
            assertThat(context.getBean(ShopService.class).events()).containsExactly("commit, lock held: false");
        });
    }
}
