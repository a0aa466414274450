package io.distlock.cli.demo;

import io.distlock.fencing.StaleTokenException;
import io.distlock.fencing.redis.FencedRedis;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.Map;

/**
 * The demo's "database": the stock and the sales log in their own Redis database, shared by all workers. With a
 * fencing token, the stock is read and written through distlock-fencing ({@link FencedRedis}), which refuses a token
 * lower than one the stock has seen; without one (token 0), plainly.
 */
final class StockStore {
    static final String STOCK = "demo:stock";
    static final String SALES = "demo:sales";
    static final String ITEMS = "demo:items";
    static final String ATTEMPTS = "demo:attempts";

    private final RedisCommands<String, String> db;
    private final FencedRedis fenced;

    StockStore(RedisCommands<String, String> db) {
        this.db = db;
        this.fenced = FencedRedis.on(db);
    }

    /** Empties the store and sets the stock; called by the coordinator before each strategy. */
    void reset(int stock) {
        db.del(STOCK, FencedRedis.tokenKey(STOCK), SALES, ITEMS, ATTEMPTS);
        db.set(STOCK, Integer.toString(stock));
    }

    /** Takes the next attempt number, shared by all workers; returns it (1-based). */
    long nextAttempt() {
        return db.incr(ATTEMPTS);
    }

    /**
     * Returns the stock, or -1 if the fenced read was refused (a newer holder has been here). A fenced read records its
     * token, so a holder that read before a newer holder read cannot write after it (see {@link FencedRedis#get}).
     */
    long read(long token) {
        try {
            String stock = token > 0 ? fenced.get(STOCK, token) : db.get(STOCK);
            return stock == null ? 0 : Long.parseLong(stock);
        } catch (StaleTokenException stale) {
            return -1;
        }
    }

    /**
     * Writes the new stock and records that item {@code item} was sold; false if the write was fenced out. The sale is
     * recorded after the stock write, by the same thread: the demo counts what was written, it does not fence the count.
     */
    boolean commit(long newStock, long item, long token) {
        try {
            if (token > 0) {
                fenced.set(STOCK, token, Long.toString(newStock));
            } else {
                db.set(STOCK, Long.toString(newStock));
            }
        } catch (StaleTokenException stale) {
            return false;
        }
        db.incr(SALES);
        db.hincrby(ITEMS, Long.toString(item), 1);
        return true;
    }

    long sales() {
        String sales = db.get(SALES);
        return sales == null ? 0 : Long.parseLong(sales);
    }

    long attempts() {
        String attempts = db.get(ATTEMPTS);
        return attempts == null ? 0 : Long.parseLong(attempts);
    }

    /** Returns how many item numbers were sold more than once. */
    long doubleSoldItems() {
        Map<String, String> items = db.hgetall(ITEMS);
        return items.values().stream().filter(count -> Long.parseLong(count) > 1).count();
    }
}
