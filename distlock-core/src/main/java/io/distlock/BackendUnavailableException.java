package io.distlock;

import org.jspecify.annotations.Nullable;

/**
 * Thrown when the backend (Redis, ZooKeeper, ...) could not be reached or did not answer within the
 * client's configured operation timeout. distlock never hangs on an unreachable backend: every call
 * that talks to it fails with this exception within that timeout.
 *
 * <p>When thrown by an acquisition, nothing is held: if the backend granted the lock after the caller
 * gave up, the engine releases it as soon as the grant becomes known.
 */
public class BackendUnavailableException extends LockException {
    private static final long serialVersionUID = 1L;

    /** Creates the exception with a message naming the backend and the failed operation. */
    public BackendUnavailableException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }
}
