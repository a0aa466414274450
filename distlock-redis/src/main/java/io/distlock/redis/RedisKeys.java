package io.distlock.redis;

/**
 * Names the Redis keys and channels of a lock. The lock name is wrapped in a hash tag, so every key
 * and channel of one lock maps to one cluster slot, whatever the name contains.
 */
final class RedisKeys {
    private final String prefix;

    RedisKeys(String prefix) {
        this.prefix = checkPrefix(prefix);
    }

    static String checkPrefix(String prefix) {
        if (prefix == null) {
            throw new IllegalArgumentException("keyPrefix must not be null");
        }
        if (prefix.indexOf('{') >= 0 || prefix.indexOf('}') >= 0) {
            throw new IllegalArgumentException("keyPrefix must not contain '{' or '}' (they would break the hash tag): " + prefix);
        }
        if (prefix.length() > 256) {
            throw new IllegalArgumentException("keyPrefix must be at most 256 characters, was " + prefix.length());
        }
        return prefix;
    }

    String prefix() {
        return prefix;
    }

    /** Returns the key that holds the lock: {@code <prefix>{<name>}}. */
    String lockKey(String name) {
        return prefix + "{" + name + "}";
    }

    /** Returns the channel on which releases of the lock are published. */
    String releaseChannel(String name) {
        return prefix + "{" + name + "}:released";
    }
}
