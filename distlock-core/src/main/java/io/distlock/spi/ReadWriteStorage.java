package io.distlock.spi;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * The storage of read-write locks (see {@link LockKinds}): two views of one lock per name. Through
 * {@link #readers()} many owner ids hold the lock at once, each with its own lease; through
 * {@link #writers()} one owner id holds it, never together with a reader. Both renew, release and
 * force-release only their own side. Fencing tokens come from one counter per name.
 */
public interface ReadWriteStorage {

    /** Returns the shared side: {@code isLocked} is true while any reader holds; {@code forceRelease} frees every reader. */
    LockBackend readers();

    /** Returns the exclusive side: {@code isLocked} is true while the writer holds; {@code forceRelease} frees the writer. */
    LockBackend writers();

    /**
     * Ends every hold of {@code name} that exists at one instant, the writer's and every reader's, in one atomic step,
     * and notifies waiters: no holder granted in between is ended, none is left holding beside another, and a replay of
     * this request (sent again after a reconnect) ends nothing granted after it first ran. Each ended holder learns it
     * at its next renewal or release ({@link OwnerCheck#FORCE_UNLOCKED} where the backend can tell).
     *
     * @return how many holds it ended
     */
    CompletableFuture<Integer> forceReleaseAll(String name);

    /**
     * Grants a read hold to {@code readerOwnerId} at once, jumping any queue, if and only if
     * {@code writerOwnerId} holds the write lock of {@code name} (a downgrade: the writer keeps its hold
     * until it releases it). Atomic: no other writer can be granted in between.
     *
     * @return a grant with a new fencing token, or busy (changing nothing) if {@code writerOwnerId} does not hold the write lock
     */
    CompletableFuture<AcquireResult> downgrade(String name, String writerOwnerId, String readerOwnerId, Duration leaseTime);
}
