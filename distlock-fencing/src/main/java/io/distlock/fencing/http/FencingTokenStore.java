package io.distlock.fencing.http;

import io.distlock.fencing.StaleTokenException;
import io.distlock.fencing.sql.FenceTable;
import io.lettuce.core.api.sync.RedisScriptingCommands;
import javax.sql.DataSource;

/**
 * Where a server keeps the highest fencing token each resource has seen. {@link #accept} is atomic: of two calls for
 * one resource, the one with the lower token never passes after the higher one has.
 *
 * <p>In memory for one server instance ({@link #inMemory()}); in a SQL table or Redis when several instances serve the
 * same resources ({@link #sql}, {@link #redis}), so that a stale request refused by one is refused by all.
 */
public interface FencingTokenStore {
    /**
     * Records {@code token} for {@code resource} if it is not below the highest recorded.
     *
     * @throws StaleTokenException if it is: nothing was recorded
     * @throws IllegalArgumentException if the token is not positive or the resource is blank or too long for the store
     */
    void accept(String resource, long token);

    /** Returns a store in this JVM's memory: right for one server instance (tokens are lost with it). */
    static FencingTokenStore inMemory() {
        return new InMemoryTokenStore();
    }

    /**
     * Returns a store in the fence table {@code fences} of {@code dataSource} (create it with
     * {@link FenceTable#create}); each {@link #accept} is a transaction of its own.
     */
    static FencingTokenStore sql(DataSource dataSource, FenceTable fences) {
        return new SqlTokenStore(dataSource, fences);
    }

    /**
     * Returns a store in Redis: a token key per resource under {@code keyPrefix}, through a Lettuce sync API
     * (standalone, Sentinel or cluster; the application's Lettuce, an optional dependency of this module).
     */
    static FencingTokenStore redis(RedisScriptingCommands<String, String> redis, String keyPrefix) {
        return new RedisTokenStore(redis, keyPrefix);
    }
}
