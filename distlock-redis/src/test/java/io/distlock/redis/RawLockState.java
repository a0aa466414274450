package io.distlock.redis;

import io.distlock.redis.testing.Resp;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/** Reads a lock's key straight from a server, bypassing distlock, for the contract tests' raw-state checks. */
final class RawLockState {
    private RawLockState() {}

    /** Returns the raw value of the lock's key on the server at {@code port}, or null if there is none. */
    static String value(int port, String name) {
        return (String) Resp.call(port, "GET", RedisKeys.defaults().lockKey(name));
    }

    /** Returns whether the server at {@code port} shows the lock held. */
    static boolean held(int port, String name) {
        return RedisKeys.isHeldValue(value(port, name));
    }

    /** Returns the fencing token the key remembers (held, or in its tombstone), if there is a key. */
    static OptionalLong lastToken(int port, String name) {
        String value = value(port, name);
        if (value == null || value.indexOf(':') <= 0) {
            return OptionalLong.empty();
        }
        return OptionalLong.of(Long.parseLong(value.substring(0, value.indexOf(':'))));
    }

    /** Returns whether the server at {@code port} shows a holder of the queued lock of {@code kind} ({@code fair}, {@code rw}, {@code sem}). */
    static boolean queueHeld(int port, String name, String kind) {
        Object held = Resp.call(port, "HGET", RedisKeys.defaults().queueState(name, kind), "held");
        return held != null && Long.parseLong((String) held) > 0;
    }

    /** Returns whether the server at {@code port} shows a writer holding the read-write lock {@code name} (readers do not count). */
    static boolean writerHeld(int port, String name) {
        return Long.valueOf(1).equals(Resp.call(port, "HEXISTS", RedisKeys.defaults().queueState(name, "rw"), "writer"));
    }

    /** Returns how many commands the server at {@code port} has processed ({@code INFO stats}), for counting a client's calls. */
    static long commandsProcessed(int port) {
        return Long.parseLong(Resp.info(port, "stats", "total_commands_processed"));
    }

    /** Returns the last fencing token the queued lock of {@code kind} remembers, if its state exists. */
    static OptionalLong queueLastToken(int port, String name, String kind) {
        Object token = Resp.call(port, "HGET", RedisKeys.defaults().queueState(name, kind), "token");
        return token == null ? OptionalLong.empty() : OptionalLong.of(Long.parseLong((String) token));
    }

    /**
     * Returns the keys of the lock {@code name} (and of names that start with it) on the server at {@code port} that
     * the server would keep for good (no expiry) or that still show a holder, described; empty when every key left is
     * a tombstone or a queue's state counting down to its expiry, as designed.
     */
    static List<String> leftovers(int port, String name) {
        List<String> left = new ArrayList<>();
        String pattern = RedisKeys.defaults().lockKey(name).replaceFirst("}$", "") + "*";
        String cursor = "0";
        do {
            List<?> reply = (List<?>) Resp.call(port, "SCAN", cursor, "MATCH", pattern, "COUNT", "1000");
            cursor = (String) reply.get(0);
            for (Object each : (List<?>) reply.get(1)) {
                String key = (String) each;
                Object ttl = Resp.call(port, "PTTL", key);
                if (Long.valueOf(-1).equals(ttl)) {
                    left.add(key + " (kept for good: no expiry)");
                } else if (key.endsWith("}") && held(port, key.substring(key.indexOf('{') + 1, key.length() - 1))) {
                    left.add(key + " (held)");
                } else if (key.matches(".*}:(fair|rw|sem)$")) {
                    Object held = Resp.call(port, "HGET", key, "held");
                    if (held != null && Long.parseLong((String) held) > 0) {
                        left.add(key + " (" + held + " held)");
                    }
                }
            }
        } while (!"0".equals(cursor));
        return left;
    }
}
