package io.distlock.redis;

import io.distlock.servers.Resp;
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
}
