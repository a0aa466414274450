package io.distlock;

import java.time.Duration;
import java.util.function.Consumer;

/**
 * One hold of a lock, with its fencing token. Not bound to a thread: a lease may be closed from any
 * thread, which suits async code and virtual threads.
 *
 * <p>A lease is valid from its grant until it is closed, or lost (see {@link LeaseLostException}),
 * or its local deadline passes without a confirmed renewal. The local deadline is measured with
 * {@link System#nanoTime()} from the moment the last confirmed acquire or renew request was sent, less
 * a drift allowance (1 % of the lease plus 2 ms), so it does not run past what the backend granted —
 * provided the clocks involved advance at about the same rate. What that assumes, per backend
 * (docs/guarantees.md): a server whose expiry clock jumps forward (Redis keeps expiries as wall-clock
 * times; a step of the server's wall clock shortens every lease) or a process paused between a check of
 * {@link #isValid()} and the work it guards can still see another holder in; fencing tokens are the
 * guard that does not depend on timing.
 */
public interface Lease extends AutoCloseable {

    /** Returns the name of the lock this lease is on. */
    String lockName();

    /**
     * Returns the fencing token: greater than the token of every earlier acquisition of this lock name
     * that took the lock from free, on any client, within what the backend can promise (ZooKeeper: always,
     * the node's creation zxid; Redis: across restarts and failovers too, unless the server's wall clock
     * is stepped back by more than the time since the last token — see docs/guarantees.md). Re-entrant
     * holds share one token. Pass it to the protected resource and have it reject writes carrying a lower
     * token than it has seen.
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
     * Registers a listener told once, on a distlock event thread, when the lease is lost, with the
     * {@link LeaseLostException#reason()}. Registered after the loss, it is told at once. Not called
     * when the lease is released normally. Listeners of one client share at most four event threads:
     * a listener that blocks delays the others.
     */
    void onLost(Consumer<LeaseLostException> listener);

    /**
     * Ends this hold like {@link #close()}, but leaves the lock held on the server for {@code holdFor} more instead of
     * releasing it: renewals stop, one last renewal sets the lease to {@code holdFor} from now, and the server frees the
     * lock when that runs out, also if this process stops meanwhile. For work that must not run again elsewhere too
     * soon: a scheduled job's minimum hold (ShedLock's lockAtLeastFor). Once it returns true the lease is no longer
     * valid for its holder. A {@code holdFor} under {@link LockOptions#MIN_LEASE_TIME} holds that long.
     *
     * <p>With other holds of the same lock still open (reentrancy) only this hold ends, and the lock stays held, and
     * renewed, by them. Backends whose locks last as long as the client's session (ZooKeeper, etcd) cannot keep a lock
     * without renewing it: there this returns false and changes nothing (the lease is still held and renewed; close it
     * when the time is up).
     *
     * @return true if the server keeps the lock for {@code holdFor} (or the other holds keep it); false if this backend
     *     cannot, or the lease was no longer held (closed, or lost: {@link #onLost} tells why)
     * @throws IllegalArgumentException if {@code holdFor} is null, zero or negative
     * @throws BackendUnavailableException if the last renewal could not be confirmed; renewal has stopped, so the lock
     *     expires after its lease, or after {@code holdFor} if the server did apply it
     */
    default boolean expireAfter(Duration holdFor) {
        LockOptions.checkHoldFor(holdFor);
        return false;
    }

    /**
     * Renews the lease now, for {@code leaseTime} from now, and keeps holding it: for a lease taken without watchdog
     * renewals ({@code autoRenew(false)}) whose holder needs more time, or less (ShedLock's extend, Spring Integration's
     * {@code renewLock}). The server keeps the lock for {@code leaseTime} from the renewal, and {@link #remaining()} and
     * {@link #isValid()} follow the new lease. Backends whose locks last as long as the client's session (ZooKeeper,
     * etcd) confirm that the lock is still held and move the local deadline only.
     *
     * <p>With other holds of the same lock (reentrancy) the one lease they share is renewed.
     *
     * @return true if renewed; false if the lease was no longer held (closed, or lost: {@link #onLost} tells why)
     * @throws IllegalArgumentException if {@code leaseTime} is null or outside [{@link LockOptions#MIN_LEASE_TIME},
     *     {@link LockOptions#MAX_LEASE_TIME}]
     * @throws IllegalStateException if the watchdog renews this lease (its lease time is the options'): renewing it by
     *     hand would race the watchdog's renewals
     * @throws BackendUnavailableException if the renewal could not be confirmed; the lease keeps its previous deadline
     * @throws UnsupportedOperationException if this kind of lease cannot be renewed by hand
     */
    default boolean renew(Duration leaseTime) {
        LockOptions.checkLeaseTime(leaseTime);
        throw new UnsupportedOperationException(getClass().getName() + " cannot be renewed by hand");
    }

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
