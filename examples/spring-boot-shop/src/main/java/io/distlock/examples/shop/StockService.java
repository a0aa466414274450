package io.distlock.examples.shop;

import io.distlock.fencing.sql.FencedColumn;
import io.distlock.spring.LockContext;
import io.distlock.spring.WithLock;
import java.util.OptionalLong;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Deducts stock under a lock per SKU, with the lock's fencing token checked by the database (distlock-fencing's
 * {@link FencedColumn}), so that a holder whose lease ran out (a GC pause, say) cannot write over a newer holder's
 * work: its update finds a higher token on the row and throws {@code StaleTokenException}, which rolls the order back.
 */
@Service
public class StockService {
    /** The stock row's token column: the fencing token of the last holder that wrote it. */
    private static final FencedColumn STOCK = FencedColumn.of("stock", "fence");

    private final JdbcTemplate jdbc;
    private final String instance;

    public StockService(JdbcTemplate jdbc, @Value("${shop.instance}") String instance) {
        this.jdbc = jdbc;
        this.instance = instance;
    }

    /**
     * Sells {@code quantity} of {@code sku}: the order id, or empty when not enough is left.
     *
     * @throws io.distlock.fencing.StaleTokenException if a newer holder of the SKU's lock has written the row (this
     *     call's lease ended while it ran): nothing was sold
     */
    @WithLock(name = "stock", key = "#sku", waitTime = "5s")
    @Transactional
    public OptionalLong buy(String sku, int quantity) {
        // The guard takes this method's fencing token from the lock (@WithLock) without being handed it. The update is
        // relative and conditional ("quantity - ?" where enough is left), not "read, compute, write back": a holder
        // that read, was paused, and writes before the next holder has written would otherwise pass the fence with a
        // stale value.
        Integer updated = jdbc.execute((ConnectionCallback<Integer>) connection -> STOCK.update(connection,
                "quantity = quantity - ?", "sku = ? AND quantity >= ?", quantity, sku, quantity));
        if (updated == null || updated == 0) {
            return OptionalLong.empty();
        }
        long token = LockContext.currentLease().fencingToken();
        jdbc.update("INSERT INTO orders (sku, quantity, fence, instance) VALUES (?, ?, ?, ?)", sku, quantity, token, instance);
        return OptionalLong.of(jdbc.queryForObject("SELECT MAX(id) FROM orders WHERE fence = ?", Long.class, token));
    }

    /** Returns how many of {@code sku} are left, or -1 for an unknown SKU. */
    public int left(String sku) {
        return jdbc.query("SELECT quantity FROM stock WHERE sku = ?", rs -> rs.next() ? rs.getInt(1) : -1, sku);
    }
}
