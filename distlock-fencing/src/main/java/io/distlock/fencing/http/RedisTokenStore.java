package io.distlock.fencing.http;

import io.distlock.fencing.FencingTokens;
import io.distlock.fencing.StaleTokenException;
import io.distlock.fencing.redis.FencedRedis;
import io.lettuce.core.api.sync.RedisScriptingCommands;

/**
 * The highest token per resource in Redis: a fenced read of {@code <prefix><resource>} records the token as a write
 * would (the script of {@link FencedRedis}), so its token key ({@link FencedRedis#tokenKey}) holds it. A resource
 * with braces but no hash tag is refused, as {@code tokenKey} refuses such a key.
 */
final class RedisTokenStore implements FencingTokenStore {
    private final FencedRedis redis;
    private final String keyPrefix;

    RedisTokenStore(RedisScriptingCommands<String, String> redis, String keyPrefix) {
        if (keyPrefix.indexOf('{') >= 0 || keyPrefix.indexOf('}') >= 0) {
            throw new IllegalArgumentException("the key prefix has no braces (each resource's key gets its own slot), was '" + keyPrefix + "'");
        }
        this.redis = FencedRedis.on(redis);
        this.keyPrefix = keyPrefix;
    }

    @Override
    public void accept(String resource, long token) {
        FencingTokens.requireValid(token);
        String key = keyPrefix + Resources.require(resource);
        try {
            redis.get(key, token);
        } catch (StaleTokenException stale) {
            throw new StaleTokenException("HTTP resource '" + resource + "'", token, stale.highestSeen());
        }
    }

    @Override
    public String toString() {
        return "Redis fencing token store (keys " + keyPrefix + "*)";
    }
}
