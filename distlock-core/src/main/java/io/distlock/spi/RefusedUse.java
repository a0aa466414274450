package io.distlock.spi;

import org.jspecify.annotations.Nullable;

/**
 * A call a backend refuses because of how the lock is in use, such as a semaphore asked with another number of permits
 * than it is in use with. It is the caller's mistake, not a server's failure: backends pass it to the caller as it is
 * (never translated into a {@link io.distlock.LockException}, never retried), and the refused call leaves nothing
 * behind.
 */
public final class RefusedUse extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    /** Creates the refusal with a message that names the lock, the server and what to do instead. */
    public RefusedUse(String message) {
        super(message);
    }

    /** Creates the refusal with a message that names the lock, the server and what to do instead, and its cause. */
    public RefusedUse(String message, @Nullable Throwable cause) {
        super(message, cause);
    }

    /**
     * Returns the refusal of a semaphore asked with {@code asked} permits while it is in use with {@code inUse}: the
     * same words on every backend.
     *
     * @param operation what was refused ("acquire")
     * @param where the server, as the backend describes it
     * @param inUse the number the semaphore is in use with, as the server stores it
     */
    public static RefusedUse permits(String operation, String name, String where, String inUse, int asked) {
        return new RefusedUse(operation + " of semaphore '" + name + "' on " + where + ": the semaphore is in use with " + inUse
                + " permits, asked with " + asked + "; every client must use the same number");
    }
}
