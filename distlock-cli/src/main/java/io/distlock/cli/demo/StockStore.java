package io.distlock.cli.demo;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * The demo's "database": the stock and the sales log in their own Redis database, shared by all
 * workers. Reads and writes optionally carry a fencing token, which the store checks atomically.
 */
final class StockStore {
    static final String STOCK = "demo:stock";
    static final String FENCE = "demo:fence";
    static final String SALES = "demo:sales";
    static final String ITEMS = "demo:items";
    static final String ATTEMPTS = "demo:attempts";

    private static final String READ = load("read-stock.lua");
    private static final String COMMIT = load("commit-sale.lua");

    private final RedisCommands<String, String> db;

    StockStore(RedisCommands<String, String> db) {
        this.db = db;
    }

    /** Empties the store and sets the stock; called by the coordinator before each strategy. */
    void reset(int stock) {
        db.del(STOCK, FENCE, SALES, ITEMS, ATTEMPTS);
        db.set(STOCK, Integer.toString(stock));
    }

    /** Takes the next attempt number, shared by all workers; returns it (1-based). */
    long nextAttempt() {
        return db.incr(ATTEMPTS);
    }

    /** Returns the stock, or -1 if the fenced read was rejected (token lower than one already seen). */
    long read(long token) {
        Long stock = db.eval(READ, ScriptOutputType.INTEGER, new String[] {STOCK, FENCE}, Long.toString(token));
        return stock;
    }

    /** Writes the new stock and records that item {@code item} was sold; false if fenced out. */
    boolean commit(long newStock, long item, long token) {
        Long written = db.eval(COMMIT, ScriptOutputType.INTEGER, new String[] {STOCK, FENCE, SALES, ITEMS},
                Long.toString(newStock), Long.toString(item), Long.toString(token));
        return written == 1L;
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

    private static String load(String resource) {
        try (InputStream in = StockStore.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + resource);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
