package io.distlock.jdbc;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The lock table's name, and the key of a lock's row: the SHA-256 of its name. A hash rather than the
 * name itself because names of up to 1024 characters (4 KiB in UTF-8) exceed what PostgreSQL and
 * InnoDB can index, and because a case-insensitive collation (MySQL's default) would make
 * {@code Order-1} and {@code order-1} one lock.
 */
final class LockTable {
    /** The default table name. */
    static final String DEFAULT_NAME = "distlock_locks";
    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}(\\.[A-Za-z_][A-Za-z0-9_]{0,62})?");

    private final String name;

    private LockTable(String name) {
        this.name = name;
    }

    /**
     * Returns the table of this name, optionally schema-qualified.
     *
     * @throws IllegalArgumentException unless it is one or two plain SQL identifiers (letters, digits, '_')
     */
    static LockTable named(String name) {
        if (name == null || !IDENTIFIER.matcher(name).matches()) {
            throw new IllegalArgumentException("table name must be [schema.]table, each a letter or '_' followed by up to 62 letters, "
                    + "digits or '_' (it is written into SQL), was '" + name + "'");
        }
        return new LockTable(name);
    }

    /** Returns the table name as written in SQL. */
    String name() {
        return name;
    }

    /** Returns the schema as written, or null if the name is not schema-qualified. */
    @Nullable String schema() {
        int dot = name.indexOf('.');
        return dot < 0 ? null : name.substring(0, dot);
    }

    /** Returns the table name without its schema, as written. */
    String unqualified() {
        return name.substring(name.indexOf('.') + 1);
    }

    /** Returns the table name without its schema, for names derived from it (indexes, channels). */
    String simpleName() {
        return name.substring(name.indexOf('.') + 1).toLowerCase(java.util.Locale.ROOT);
    }

    /** Returns the row key of a lock name. */
    static byte[] key(String lockName) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(lockName.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }

    @Override
    public String toString() {
        return name;
    }
}
