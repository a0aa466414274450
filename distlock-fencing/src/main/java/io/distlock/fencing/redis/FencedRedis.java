package io.distlock.fencing.redis;

import io.distlock.fencing.FencingContext;
import io.distlock.fencing.FencingTokens;
import io.distlock.fencing.StaleTokenException;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.sync.RedisScriptingCommands;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Fenced writes to Redis keys: each write runs in one script that compares the writer's fencing token with the highest
 * the key has seen (kept in a token key next to it, in the same Cluster slot), refuses a lower one with
 * {@link StaleTokenException}, and otherwise applies the write and records the token. The same holder may write
 * again with its token.
 *
 * <pre>{@code
 * FencedRedis fenced = FencedRedis.on(connection.sync());   // a Lettuce StatefulRedisConnection<String, String>
 * try (Lease lease = locks.getLock("stock:42").acquire(Duration.ofSeconds(5))) {
 *     fenced.decrBy("stock:42", lease.fencingToken(), 1);
 * }
 * }</pre>
 *
 * <p>Works on any Lettuce sync API with scripting over string keys and values: a standalone or Sentinel connection's
 * {@code sync()}, and a cluster connection's (the data key and its token key share a slot, see {@link #tokenKey}).
 * The token key outlives a {@link #del} (so a late writer cannot recreate the key); it has no expiry of its own.
 * Tokens are compared as decimal strings in the script, so the whole positive {@code long} range compares exactly.
 */
public final class FencedRedis {
    private static final String SCRIPT = load("fenced-write.lua");

    private final RedisScriptingCommands<String, String> redis;
    private final String digest;

    private FencedRedis(RedisScriptingCommands<String, String> redis) {
        this.redis = redis;
        this.digest = redis.digest(SCRIPT);
    }

    /** Returns fenced writes through {@code redis}, a Lettuce sync API (standalone, Sentinel or cluster). */
    public static FencedRedis on(RedisScriptingCommands<String, String> redis) {
        return new FencedRedis(Objects.requireNonNull(redis, "redis"));
    }

    /**
     * Returns the key that keeps {@code key}'s highest token: {@code {tag}:distlock-fence:<key>} when {@code key} has
     * a hash tag, else {@code {<key>}:distlock-fence}; either way in {@code key}'s Cluster slot.
     *
     * @throws IllegalArgumentException if {@code key} is blank, or has no hash tag and contains {@code '}'} (its
     *     slot could not be shared; give it a hash tag)
     */
    public static String tokenKey(String key) {
        if (key == null || key.isBlank()) {
            throw new IllegalArgumentException("a key is not blank");
        }
        int open = key.indexOf('{');
        int close = open < 0 ? -1 : key.indexOf('}', open + 1);
        if (open >= 0 && close > open + 1) {
            return key.substring(open, close + 1) + ":distlock-fence:" + key;
        }
        if (key.indexOf('}') >= 0 || key.indexOf('{') >= 0) {
            throw new IllegalArgumentException("key '" + key + "' has braces but no hash tag: its token key could not share its Cluster slot; "
                    + "give it a hash tag, such as {" + key.replace("{", "").replace("}", "") + "}");
        }
        return "{" + key + "}:distlock-fence";
    }

    /** Sets {@code key} to {@code value} if {@code token} is not stale. @throws StaleTokenException if it is: nothing written */
    public void set(String key, long token, String value) {
        write(key, token, "SET", value);
    }

    /** Sets {@code fields} of the hash {@code key} if {@code token} is not stale; returns how many fields were new. */
    public long hset(String key, long token, Map<String, String> fields) {
        if (fields.isEmpty()) {
            throw new IllegalArgumentException("hset needs at least one field");
        }
        List<String> arguments = new ArrayList<>();
        fields.forEach((field, value) -> {
            arguments.add(field);
            arguments.add(value);
        });
        return integerWrite(key, token, "HSET", arguments.toArray(String[]::new));
    }

    /** Adds {@code amount} to the integer at {@code key} if {@code token} is not stale; returns the new value. */
    public long incrBy(String key, long token, long amount) {
        return integerWrite(key, token, "INCRBY", Long.toString(amount));
    }

    /** Subtracts {@code amount} from the integer at {@code key} if {@code token} is not stale; returns the new value. */
    public long decrBy(String key, long token, long amount) {
        return integerWrite(key, token, "DECRBY", Long.toString(amount));
    }

    /**
     * Appends {@code values} to the list {@code key} if {@code token} is not stale; returns the list's new length.
     * For an append-only log of what the lock's holders did, in the order their tokens allow.
     */
    public long rpush(String key, long token, String... values) {
        if (values.length == 0) {
            throw new IllegalArgumentException("rpush needs at least one value");
        }
        return integerWrite(key, token, "RPUSH", values);
    }

    /**
     * Reads {@code key} if {@code token} is not stale, and records the token as a write would; returns the value, or
     * null if the key does not exist.
     *
     * <p>Why a read is fenced: a holder that reads, is paused past its lease, and then writes is refused only if the
     * key saw a newer token first. If the newer holder has only read so far (it is about to write), an unfenced read
     * leaves the key at the old token, and the late write lands, to be overwritten by the newer holder's write from
     * the same stale read: a lost update. Reading through here closes that gap: the late write is refused. Writes that
     * are relative ({@link #incrBy}, {@link #decrBy}) need no fenced read.
     *
     * @throws StaleTokenException if a higher token has read or written the key: nothing was recorded
     */
    public @Nullable String get(String key, long token) {
        Object value = write(key, token, "GET");
        return value == null ? null : value.toString();
    }

    /** Deletes {@code key} if {@code token} is not stale (its token key stays); returns whether it existed. */
    public boolean del(String key, long token) {
        return integerWrite(key, token, "DEL") == 1;
    }

    // The same writes with the token of the lock this thread works under (inside a Spring @WithLock method, its
    // lease's token; see FencingContext). Each throws IllegalStateException, writing nothing, outside a lock.

    /** As {@link #set(String, long, String)}, with this thread's current token ({@link FencingContext}). */
    public void set(String key, String value) {
        set(key, FencingContext.currentToken(), value);
    }

    /** As {@link #hset(String, long, Map)}, with this thread's current token ({@link FencingContext}). */
    public long hset(String key, Map<String, String> fields) {
        return hset(key, FencingContext.currentToken(), fields);
    }

    /** As {@link #incrBy(String, long, long)}, with this thread's current token ({@link FencingContext}). */
    public long incrBy(String key, long amount) {
        return incrBy(key, FencingContext.currentToken(), amount);
    }

    /** As {@link #decrBy(String, long, long)}, with this thread's current token ({@link FencingContext}). */
    public long decrBy(String key, long amount) {
        return decrBy(key, FencingContext.currentToken(), amount);
    }

    /** As {@link #rpush(String, long, String...)}, with this thread's current token ({@link FencingContext}). */
    public long rpush(String key, String... values) {
        return rpush(key, FencingContext.currentToken(), values);
    }

    /** As {@link #get(String, long)}, with this thread's current token ({@link FencingContext}). */
    public @Nullable String get(String key) {
        return get(key, FencingContext.currentToken());
    }

    /** As {@link #del(String, long)}, with this thread's current token ({@link FencingContext}). */
    public boolean del(String key) {
        return del(key, FencingContext.currentToken());
    }

    /** Runs a write whose reply is an integer; returns it. */
    private long integerWrite(String key, long token, String command, String... arguments) {
        return (Long) Objects.requireNonNull(write(key, token, command, arguments), command + " answers an integer");
    }

    /** Runs the script; returns the write's reply, or throws the refusal. */
    private @Nullable Object write(String key, long token, String command, String... arguments) {
        FencingTokens.requireValid(token);
        String[] keys = {key, tokenKey(key)};
        String[] values = new String[arguments.length + 2];
        values[0] = Long.toString(token);
        values[1] = command;
        System.arraycopy(arguments, 0, values, 2, arguments.length);
        List<Object> reply;
        try {
            reply = redis.evalsha(digest, ScriptOutputType.MULTI, keys, values);
        } catch (RedisNoScriptException notLoaded) {
            reply = redis.eval(SCRIPT, ScriptOutputType.MULTI, keys, values); // loads it for the next call
        }
        if (reply == null || reply.size() != 2) {
            throw new IllegalStateException("unexpected reply of the fenced write script: " + reply);
        }
        if (Long.valueOf(0).equals(reply.get(0))) {
            throw new StaleTokenException("Redis key '" + key + "'", token, Long.parseLong(String.valueOf(reply.get(1))));
        }
        return reply.get(1);
    }

    private static String load(String name) {
        try (InputStream in = FencedRedis.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
