package io.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.fencing.FencingContext;
import io.distlock.fencing.StaleTokenException;
import io.distlock.redis.testing.RedisServerExtension;
import io.distlock.spring.autoconfigure.DistlockAutoConfiguration;
import io.distlock.spring.autoconfigure.WithLockAutoConfiguration;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.EnableTransactionManagement;

/**
 * distlock-fencing's guards inside @WithLock methods take the method's fencing token without being handed it, with
 * JdbcTemplate in a @Transactional method, locks on a real redis-server; outside a lock they refuse clearly.
 */
class FencedWithLockTest {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DistlockAutoConfiguration.class, WithLockAutoConfiguration.class))
            .withUserConfiguration(StockConfiguration.class)
            .withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.server().port());

    @Configuration(proxyBeanMethods = false)
    @EnableTransactionManagement
    static class StockConfiguration {
        @Bean
        DataSource dataSource() {
            return new DriverManagerDataSource("jdbc:h2:mem:fenced-" + System.nanoTime() + ";DB_CLOSE_DELAY=-1");
        }

        @Bean
        JdbcTemplate jdbcTemplate(DataSource dataSource) {
            JdbcTemplate jdbc = new JdbcTemplate(dataSource);
            jdbc.execute("CREATE TABLE fenced_stock (sku VARCHAR(40) PRIMARY KEY, quantity INT NOT NULL, fence BIGINT)");
            jdbc.execute("CREATE TABLE fenced_orders (sku VARCHAR(40) NOT NULL)");
            jdbc.update("INSERT INTO fenced_stock (sku, quantity) VALUES ('sku-1', 10)");
            return jdbc;
        }

        @Bean
        PlatformTransactionManager transactionManager(DataSource dataSource) {
            return new DataSourceTransactionManager(dataSource);
        }

        @Bean
        FencedStock fencedStock(JdbcTemplate jdbcTemplate) {
            return new FencedStock(jdbcTemplate);
        }
    }

    private static FencedStock stock(ApplicationContext context) {
        FencedStock stock = context.getBean(FencedStock.class);
        stock.self(stock);
        return stock;
    }

    private static int quantity(JdbcTemplate jdbc) {
        return jdbc.queryForObject("SELECT quantity FROM fenced_stock WHERE sku = 'sku-1'", Integer.class);
    }

    private static int orders(JdbcTemplate jdbc) {
        return jdbc.queryForObject("SELECT COUNT(*) FROM fenced_orders", Integer.class);
    }

    @Test
    void aWithLockMethodsGuardWritesWithTheMethodsToken() {
        runner.run(context -> {
            JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
            long token = stock(context).sell("sku-1");
            assertThat(quantity(jdbc)).isEqualTo(9);
            assertThat(jdbc.queryForObject("SELECT fence FROM fenced_stock WHERE sku = 'sku-1'", Long.class)).as("the row's token").isEqualTo(token);
            long next = stock(context).sell("sku-1");
            assertThat(next).isGreaterThan(token);
            assertThat(FencingContext.findCurrentToken()).as("no token left on the thread after the method").isEmpty();
        });
    }

    @Test
    void aStaleTokenRollsTheWholeTransactionBack() {
        runner.run(context -> {
            JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
            // as if a newer holder had written the row: every token the lock gives out now is below its fence
            jdbc.update("UPDATE fenced_stock SET fence = ? WHERE sku = 'sku-1'", Long.MAX_VALUE);
            assertThatThrownBy(() -> stock(context).sell("sku-1")).isInstanceOfSatisfying(StaleTokenException.class,
                    stale -> assertThat(stale.highestSeen()).isEqualTo(Long.MAX_VALUE));
            assertThat(quantity(jdbc)).isEqualTo(10);
            assertThat(orders(jdbc)).as("the order written before the refused update was rolled back with it").isZero();
        });
    }

    @Test
    void outsideALockTheGuardRefusesAndWritesNothing() {
        runner.run(context -> {
            JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
            assertThatThrownBy(() -> stock(context).sellWithoutALock("sku-1")).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("no fencing token").hasMessageContaining("@WithLock").hasMessageContaining("lease.fencingToken()");
            assertThat(quantity(jdbc)).isEqualTo(10);
            assertThat(orders(jdbc)).isZero();
        });
    }

    @Test
    void aMonoReturnedByAWithLockMethodCarriesItsTokenForTheWebClientFilter() {
        runner.run(context -> {
            long[] tokens = stock(context).reactiveTokens().block(java.time.Duration.ofSeconds(30));
            assertThat(tokens).isNotNull();
            assertThat(tokens[0]).as("the token under FencingContext.REACTOR_CONTEXT_KEY").isPositive().isEqualTo(tokens[1]);
        });
    }

    @Test
    void aNestedWithLockMethodWritesWithItsOwnTokenAndTheOuterOneComesBack() {
        runner.run(context -> {
            long[] tokens = stock(context).nested();
            assertThat(tokens[1]).as("inner").isPositive().isNotEqualTo(tokens[0]);
            assertThat(tokens[2]).as("outer again").isEqualTo(tokens[0]);
            assertThat(tokens[0]).as("the outer lease's token").isEqualTo(tokens[3]);
        });
    }
}
