package io.distlock.redis;

import org.jspecify.annotations.Nullable;

/**
 * The Redis layout of distlock's locks: the key that holds a lock, the channel its releases are
 * published on, and how to read the key's value. Tools that inspect or administer locks (the CLI,
 * tests, dashboards) use this class instead of building key names themselves.
 *
 * <p>A lock named {@code orders:42} under the default prefix is the key {@code distlock:{orders:42}};
 * its releases are published on {@code distlock:{orders:42}:released}. While held, the key's value is
 * {@code <fencing token>:<owner id>} and its PX expiry is the lease; see {@link #isHeldValue} for the
 * values a released lock leaves behind.
 */
public final class RedisKeys {
    /*
     * Key = prefix + "{" + tag + "}", channel = key + ":released", tag = the name with every '}'
     * replaced by U+001A (SUBSTITUTE). Redis Cluster hashes only what lies between the first '{' and
     * the first '}' after it, so a '}' in the name would end the tag early; a name starting with '}'
     * would make the tag empty, the whole key would be hashed, and the key and its channel would land
     * in different slots (the release script could not publish, every unlock would fail). With the
     * replacement the tag is the whole name, never empty and never containing '}', so every key and
     * channel of one lock is in one slot. Valid lock names never contain control characters (the
     * engine rejects them), so two names never share a tag. A '{' inside the tag is harmless (only the
     * first '{' opens it). Names without '}' keep the plain layout.
     */
    private static final char BRACE_SUBSTITUTE = '\u001A';
    private static final RedisKeys DEFAULT = new RedisKeys(RedisLockClient.DEFAULT_KEY_PREFIX);

    private final String prefix;

    private RedisKeys(String prefix) {
        this.prefix = checkPrefix(prefix);
    }

    /** Returns the layout under the default prefix, {@code distlock:}. */
    public static RedisKeys defaults() {
        return DEFAULT;
    }

    /**
     * Returns the layout under {@code prefix}.
     *
     * @throws IllegalArgumentException if the prefix is null, longer than 256 characters, or contains a brace
     */
    public static RedisKeys withPrefix(String prefix) {
        return new RedisKeys(prefix);
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

    /**
     * Returns the key that holds the lock {@code name}: {@code <prefix>{<name>}}, with each {@code '}'} of
     * the name replaced by U+001A so that the hash tag is always the whole name.
     */
    public String lockKey(String name) {
        return prefix + '{' + name.replace('}', BRACE_SUBSTITUTE) + '}';
    }

    /** Returns the channel on which releases of the lock {@code name} are published: its key plus {@code :released}. */
    public String releaseChannel(String name) {
        return lockKey(name) + ":released";
    }

    /**
     * Returns the state hash of a queued lock of {@code kind} ({@code fair}, {@code rw} or {@code sem}):
     * {@code <lock key>:<kind>}; its queue is {@code <state>:queue}, its deadlines {@code <state>:deadlines},
     * and a grant is published on {@code <state>:granted:<client>}, the channel of the client whose owner it grants (see
     * {@code queue.lua}). All share the lock's hash tag.
     */
    public String queueState(String name, String kind) {
        return lockKey(name) + ':' + kind;
    }

    /**
     * Returns whether a raw value of a lock key names a current holder. A held lock's value is
     * {@code <token>:<owner id>}. A freed lock keeps a tombstone for a while, which remembers the last
     * fencing token and how the lock was freed: {@code <token>::released:<owner id>} after its owner
     * released it, {@code <token>::forced:<request id>:<owner id>} after a force-unlock ended that
     * owner's hold, or (written by earlier versions) {@code <token>:}. A value whose part after the first
     * {@code ':'} is empty or starts with {@code ':'} is a tombstone: the lock is free.
     */
    public static boolean isHeldValue(@Nullable String value) {
        if (value == null) {
            return false;
        }
        int sep = value.indexOf(':');
        return sep >= 0 && sep < value.length() - 1 && value.charAt(sep + 1) != ':';
    }

    @Override
    public String toString() {
        return "RedisKeys[prefix=" + prefix + "]";
    }
}
