package io.distlock;

import org.jspecify.annotations.Nullable;

/**
 * Base of every exception distlock throws about a lock. Unchecked, so it does not leak into
 * signatures; catch the specific subtypes when you can act on them.
 */
public class LockException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Creates an exception with a message that names the lock and the problem. */
    public LockException(String message) {
        super(message);
    }

    /** Creates an exception with a message and the underlying cause. */
    public LockException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }
}
