package io.distlock;

import java.time.Duration;
import java.util.function.Consumer;

/**
 * One hold of a lock, with its fencing token. Not bound to a thread: a lease may be closed from any
 * thread, which suits async code and virtual threads.
 *
 * <p>A lease is valid from its grant until it is closed, or lost (see {@link LeaseLostException}),
 * or its local deadline passes without a confirmed renewal. The local deadline is measured with
 * {@link System#nanoTime()} from the moment the last confirmed acquire or renew request was sent,
 * so it never runs past what the backend granted.
 */
public interface Lease extends AutoCloseable {

    /** Returns the name of the lock this lease is on. */
    String lockName();

    /**
     * Returns the fencing token: strictly greater than the token of every earlier acquisition of this
     * lock name that took the lock from free, on any client. Re-entrant holds share one token. Pass it
     * to the protected resource and have it reject writes carrying a lower token than it has seen.
     */
    long fencingToken();

    /** Returns whether the lease still holds: not closed, not lost and within its local deadline. */
    boolean isValid();

    /**
     * Returns how long the lease is guaranteed to last without another renewal: never more than the
     * backend could still grant. Zero when the lease is not valid.
     */
    Duration remaining();

    /**
     * Registers a listener told once, on a distlock thread, when the lease is lost. Registered after
     * the loss, it is told at once. Not called when the lease is released normally.
     */
    void onLost(Consumer<LeaseLostException> listener);

    /**
     * Releases this hold; the backend lock is released with the last hold. Idempotent. A lease that
     * was lost closes quietly.
     *
     * @throws BackendUnavailableException if the release could not be confirmed; renewal has stopped,
     *     so the lock expires after its lease at the latest
     */
    @Override
    void close();
}
