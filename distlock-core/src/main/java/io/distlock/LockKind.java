package io.distlock;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The kinds of lock a {@link LockClient} hands out. One model for every place that names a kind: what a
 * backend stores ({@link io.distlock.spi.LockBackendProvider#kinds()}), what an operator sees
 * ({@link LockInspector.LockState#kind()}), and the command line ({@code distlock check --kind},
 * {@code distlock locks force-unlock --kind}, {@code distlock backends}), which spells each kind by its
 * {@link #id()}.
 *
 * <p>The kinds of one name are separate locks on every backend: {@code getLock("x")} and
 * {@code getFairLock("x")} can be held at once.
 */
public enum LockKind {
    /** {@link LockClient#getLock}: one holder at a time. */
    LOCK("lock", "lock"),
    /** {@link LockClient#getFairLock}: one holder at a time, granted in arrival order. */
    FAIR_LOCK("fair-lock", "fair lock"),
    /** {@link LockClient#getReadWriteLock}: one writer, or any number of readers. */
    READ_WRITE_LOCK("read-write-lock", "read-write lock"),
    /** {@link LockClient#getSemaphore}: as many holders as the semaphore has permits. */
    SEMAPHORE("semaphore", "semaphore");

    private final String id;
    private final String description;

    LockKind(String id, String description) {
        this.id = id;
        this.description = description;
    }

    /** Returns how the command line, JSON output and metrics spell this kind: {@code lock}, {@code fair-lock}, ... */
    public String id() {
        return id;
    }

    /** Returns the kind in words, for messages: {@code fair lock}, {@code read-write lock}, ... */
    public String description() {
        return description;
    }

    /**
     * Returns the kind spelled {@code id} (as {@link #id()}, case and surrounding blanks ignored).
     *
     * @throws IllegalArgumentException naming the known ids, for any other word or null
     */
    public static LockKind fromId(String id) {
        if (id != null) {
            String wanted = id.trim().toLowerCase(Locale.ROOT);
            for (LockKind kind : values()) {
                if (kind.id.equals(wanted)) {
                    return kind;
                }
            }
        }
        throw new IllegalArgumentException("the kind of lock must be one of " + ids() + ", was " + (id == null ? "null" : "'" + id + "'"));
    }

    /** Returns every kind's id, comma-separated, in declaration order: for help texts and error messages. */
    public static String ids() {
        return Arrays.stream(values()).map(LockKind::id).collect(Collectors.joining(", "));
    }
}
