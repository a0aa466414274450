package io.distlock.examples.shop;

import io.distlock.spring.LockContext;
import io.distlock.spring.WithLock;
import java.util.OptionalLong;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Deducts stock the textbook-unsafe way (read, compute, write back) made safe by a lock per SKU, with the
 * lock's fencing token checked by the database so that a holder whose lease ran out (a GC pause, say)
 * cannot write over a newer holder's work.
 */
@Service
public class StockService {
    /** A write refused by the database: a newer lock holder has written since this one acquired. */
    public static class StaleHolderException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        StaleHolderException(String sku, long token) {
            super("fencing token " + token + " for " + sku + " is older than the last write; not applied");
        }
    }

    private final JdbcTemplate jdbc;
    private final String instance;

    public StockService(JdbcTemplate jdbc, @Value("${shop.instance}") String instance) {
        this.jdbc = jdbc;
        this.instance = instance;
    }

    /** Sells {@code quantity} of {@code sku}: the order id, or empty when not enough is left. */
    @WithLock(name = "stock", key = "#sku", waitTime = "5s")
    @Transactional
    public OptionalLong buy(String sku, int quantity) {
        long token = LockContext.currentLease().fencingToken();
        Integer left = jdbc.queryForObject("SELECT quantity FROM stock WHERE sku = ?", Integer.class, sku);
        if (left == null || left < quantity) {
            return OptionalLong.empty();
        }
        int written = jdbc.update("UPDATE stock SET quantity = ?, fence = ? WHERE sku = ? AND fence < ?", left - quantity, token, sku, token);
        if (written == 0) {
            throw new StaleHolderException(sku, token); // rolls the transaction back
        }
        jdbc.update("INSERT INTO orders (sku, quantity, fence, instance) VALUES (?, ?, ?, ?)", sku, quantity, token, instance);
        return OptionalLong.of(jdbc.queryForObject("SELECT MAX(id) FROM orders WHERE fence = ?", Long.class, token));
    }

    /** Returns how many of {@code sku} are left, or -1 for an unknown SKU. */
    public int left(String sku) {
        return jdbc.query("SELECT quantity FROM stock WHERE sku = ?", rs -> rs.next() ? rs.getInt(1) : -1, sku);
    }
}
