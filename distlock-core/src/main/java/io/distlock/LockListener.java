package io.distlock;

/**
 * Hears what happens to the leases of one client: for metrics (distlock-micrometer), tracing, or an
 * inventory of held locks. Registered with the backend's builder ({@code listener(...)}).
 *
 * <p>Called on distlock's own threads (acquiring, watchdog, event threads): return quickly and do not
 * block or take locks. An exception thrown by a listener is logged and otherwise ignored. The
 * {@link Lease} passed is a view of the acquisition: its token, validity and remaining time are live,
 * and closing it releases nothing.
 */
public interface LockListener {
    /** A lock was acquired from the backend (not on re-entry by its holder). */
    default void acquired(Lease lease) {}

    /** The backend confirmed a renewal. */
    default void renewed(Lease lease) {}

    /** A renewal got no answer or an error; it is retried while the lease lasts. */
    default void renewalFailed(Lease lease, Throwable error) {}

    /** The lease was lost; {@code loss.reason()} says why. Called once, before {@link #ended}. */
    default void lost(Lease lease, LeaseLostException loss) {}

    /** The lease ended: released by its holder, or lost. Called once per {@link #acquired}. */
    default void ended(Lease lease) {}
}
