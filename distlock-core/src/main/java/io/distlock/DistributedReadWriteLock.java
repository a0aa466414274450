package io.distlock;

import java.util.concurrent.locks.ReadWriteLock;

/**
 * A named read-write lock shared by every client of the same backend: any number of readers, or one
 * writer. Each side is a {@link DistributedLock} with everything that implies (leases renewed by the
 * watchdog, loss reported, fencing tokens, reentrancy per thread, leases closable from any thread).
 *
 * <h2>Semantics</h2>
 * <ul>
 *   <li><b>Readers each hold their own lease</b>: one reader's crash, pause or loss affects no other reader.
 *   <li><b>Writer-preferring and fair</b>: waiters are served in arrival order across all clients; readers
 *       that reach the head of the queue together are granted together, and a reader that arrives while a
 *       writer waits queues behind that writer, so a stream of readers cannot starve it.
 *   <li><b>Fencing</b>: one counter per lock, bumped on every grant; a write token is larger than every
 *       token granted before it, so a resource that remembers the largest token it has seen rejects
 *       every holder from before the current writer.
 *   <li><b>Downgrade</b>: a thread that holds the write lock may acquire the read lock; it is granted at
 *       once, atomically, and the thread may then release the write lock and go on reading. No other
 *       writer can get in between.
 *   <li><b>No upgrade</b>: a thread that holds the read lock and asks for the write lock gets an
 *       {@link IllegalStateException} instead of waiting forever: two readers that both tried to upgrade
 *       would each wait for the other to stop reading. Release the read lock, then acquire the write lock
 *       (and re-read what you read, since a writer may have come in between).
 * </ul>
 *
 * <p>The read and write locks of one name form one lock, separate from {@code getLock(name)} and
 * {@code getFairLock(name)} of the same name.
 */
public interface DistributedReadWriteLock extends ReadWriteLock {

    /** Returns the lock's name. */
    String name();

    /** Returns the shared side: held by any number of readers at once, never together with the writer. */
    @Override
    DistributedLock readLock();

    /** Returns the exclusive side: held by one writer, never together with a reader. */
    @Override
    DistributedLock writeLock();

    /**
     * Administrative: frees the lock whoever holds it, the writer and every reader, in one atomic step on the backend,
     * so that no holder granted meanwhile is freed and no moment exists in which a writer and a reader both hold. The
     * holders of this client are told at once ({@link LeaseLostException.Reason#FORCE_UNLOCKED}); holders elsewhere
     * learn it at their next renewal. Waiters are then granted as after a release.
     *
     * @return true if anyone held the lock
     * @throws BackendUnavailableException if the backend did not answer within the operation timeout (the lock may or
     *     may not have been freed)
     */
    boolean forceUnlock();
}
