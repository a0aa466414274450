package io.distlock.spring;

import io.distlock.fencing.FencingContext;
import io.distlock.fencing.sql.FencedColumn;
import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Transactional;

/** A bean whose @WithLock methods write through distlock-fencing's guards without handing them a token. */
public class FencedStock {
    static final FencedColumn STOCK = FencedColumn.of("fenced_stock", "fence");

    private final JdbcTemplate jdbc;
    private FencedStock self;

    public FencedStock(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    /** The bean's proxy, for calls that must go through the advice. */
    public void self(FencedStock proxy) {
        this.self = proxy;
    }

    /** Records an order and takes one off the stock, in one transaction under the SKU's lock; returns the lease's token. */
    @WithLock(name = "fenced", key = "#sku")
    @Transactional
    public long sell(String sku) {
        jdbc.update("INSERT INTO fenced_orders (sku) VALUES (?)", sku);
        jdbc.execute((ConnectionCallback<Integer>) connection -> STOCK.update(connection, "quantity = quantity - 1", "sku = ?", sku));
        return LockContext.currentLease().fencingToken();
    }

    /** The same write without a lock: the guard has no token to take. */
    @Transactional
    public void sellWithoutALock(String sku) {
        jdbc.update("INSERT INTO fenced_orders (sku) VALUES (?)", sku);
        jdbc.execute((ConnectionCallback<Integer>) connection -> STOCK.update(connection, "quantity = quantity - 1", "sku = ?", sku));
    }

    /** Returns the current token before, inside and after a nested @WithLock method. */
    @WithLock(name = "outer")
    public long[] nested() {
        long outer = FencingContext.currentToken();
        long inner = self.inner();
        return new long[] {outer, inner, FencingContext.currentToken(), LockContext.currentLease().fencingToken()};
    }

    /** Returns the token in its Reactor context for the fencing filter, and its lease's. */
    @WithLock(name = "reactive-fenced")
    public reactor.core.publisher.Mono<long[]> reactiveTokens() {
        return reactor.core.publisher.Mono.deferContextual(context -> reactor.core.publisher.Mono.just(new long[] {
                context.<Long>get(FencingContext.REACTOR_CONTEXT_KEY), context.<io.distlock.Lease>get(LockContext.REACTOR_CONTEXT_KEY).fencingToken()}));
    }

    @WithLock(name = "inner")
    public long inner() {
        return FencingContext.currentToken();
    }
}
