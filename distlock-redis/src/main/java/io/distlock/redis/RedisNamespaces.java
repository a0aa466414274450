package io.distlock.redis;

import io.distlock.BackendUnavailableException;
import io.distlock.spi.TargetUri;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisKeyCommands;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import java.time.Duration;

/**
 * Removes a namespace (a key prefix) from a Redis server or cluster: every key of its layout, {@code <prefix>{...}},
 * found with SCAN (which the server answers in small steps, never blocking it as KEYS would) and deleted one by one.
 * Keys outside it are never touched: the pattern escapes every glob character of the prefix and ends in the '{' that
 * starts every key's hash tag (RedisKeys), which no prefix may contain, so prefix "x" matches neither "xy{...}" of
 * namespace "xy" nor "x:{...}" of namespace "x:" (removing namespace "distlock" leaves the default "distlock:" alone).
 */
final class RedisNamespaces {
    private RedisNamespaces() {}

    /** Removes every key under {@code prefix} at {@code uri} (a cluster's seed node if {@code cluster}) and returns how many. */
    static long remove(String uri, boolean cluster, String prefix, Duration timeout) {
        RedisKeys.checkPrefix(prefix);
        if (prefix.isEmpty()) {
            throw new IllegalArgumentException("an empty key prefix is the whole server: refusing to remove it");
        }
        RedisURI redisUri = RedisURI.create(uri);
        redisUri.setTimeout(timeout);
        String pattern = escape(prefix) + "{*"; // '{' is never in a prefix: no other namespace's keys start this way
        try {
            if (cluster) {
                RedisClusterClient client = RedisClusterClient.create(redisUri);
                try (StatefulRedisClusterConnection<String, String> connection = client.connect()) {
                    return remove(connection.sync(), pattern); // the cluster's SCAN walks every master
                } finally {
                    client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
                }
            }
            RedisClient client = RedisClient.create(redisUri);
            try (StatefulRedisConnection<String, String> connection = client.connect()) {
                return remove(connection.sync(), pattern);
            } finally {
                client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
            }
        } catch (RedisException e) {
            throw new BackendUnavailableException("could not remove the namespace '" + prefix + "' from " + TargetUri.mask(uri) + ": "
                    + e.getMessage(), e);
        }
    }

    private static long remove(RedisKeyCommands<String, String> redis, String pattern) {
        long removed = 0;
        ScanArgs args = ScanArgs.Builder.matches(pattern).limit(500);
        KeyScanCursor<String> cursor = redis.scan(args);
        while (true) {
            for (String key : cursor.getKeys()) {
                removed += redis.del(key);
            }
            if (cursor.isFinished()) {
                return removed;
            }
            cursor = redis.scan(cursor, args); // the cursor itself: a cluster's carries the node it is on
        }
    }

    /** Escapes the glob characters of SCAN's MATCH ({@code * ? [ ] \}) so the prefix matches only itself. */
    static String escape(String prefix) {
        StringBuilder out = new StringBuilder(prefix.length() + 8);
        for (char c : prefix.toCharArray()) {
            if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') {
                out.append('\\');
            }
            out.append(c);
        }
        return out.toString();
    }
}
