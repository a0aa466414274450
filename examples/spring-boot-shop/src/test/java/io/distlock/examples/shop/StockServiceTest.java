package io.distlock.examples.shop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.Lease;
import io.distlock.LockAcquireTimeoutException;
import io.distlock.LockClient;
import io.distlock.test.AutoConfigureInMemoryLocks;
import io.distlock.test.InMemoryLockServer;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The shop's locking, tested in one JVM without a Redis: distlock-test's in-memory lock server stands in for it
 * (ThreeInstancesTest runs three real instances on a real redis-server).
 */
@SpringBootTest(properties = {"spring.datasource.url=jdbc:h2:mem:stock-test;DB_CLOSE_DELAY=-1", "shop.report.cron=-"})
@AutoConfigureInMemoryLocks
class StockServiceTest {
    @Autowired
    StockService stock;
    @Autowired
    InMemoryLockServer locks;
    @Autowired
    JdbcTemplate jdbc;

    @Test
    void aSaleRecordsItsLocksFencingTokenOnTheRowAndTheOrder() {
        int before = stock.left("last-items");
        OptionalLong order = stock.buy("last-items", 2);
        assertThat(order).isPresent();
        assertThat(stock.left("last-items")).isEqualTo(before - 2);
        long fence = jdbc.queryForObject("SELECT fence FROM orders WHERE id = ?", Long.class, order.getAsLong());
        assertThat(jdbc.queryForObject("SELECT fence FROM stock WHERE sku = 'last-items'", Long.class)).isEqualTo(fence);
    }

    @Test
    void whileAnotherInstanceHoldsTheSkusLockASaleWaitsAndThenGivesUpSellingNothing() throws Exception {
        int before = stock.left("last-items");
        try (LockClient otherInstance = locks.newClient(); Lease held = otherInstance.getLock("stock:last-items").acquire()) {
            assertThatThrownBy(() -> stock.buy("last-items", 1)).isInstanceOf(LockAcquireTimeoutException.class);
        }
        assertThat(stock.left("last-items")).isEqualTo(before);
    }

    @Test
    void aHolderWhoseLeaseWasLostCannotWriteOverTheNextHoldersSale() throws Exception {
        // another instance takes the SKU's lock, loses its lease (a long pause), and the lock goes to this instance
        try (LockClient paused = locks.newClient()) {
            Lease stale = paused.getLock("stock:last-items").acquire();
            locks.loseLease("stock:last-items");
            assertThat(stock.buy("last-items", 1)).isPresent(); // this instance sells with a newer token
            long rowFence = jdbc.queryForObject("SELECT fence FROM stock WHERE sku = 'last-items'", Long.class);
            assertThat(rowFence).isGreaterThan(stale.fencingToken());
            // the paused holder wakes up and writes with its old token: the row refuses it
            int updated = jdbc.update("UPDATE stock SET quantity = quantity - 1, fence = ? WHERE sku = 'last-items' AND fence <= ?",
                    stale.fencingToken(), stale.fencingToken());
            assertThat(updated).as("the stale holder's write is fenced off").isZero();
        }
    }
}
