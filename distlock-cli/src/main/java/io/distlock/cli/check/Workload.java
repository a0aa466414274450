package io.distlock.cli.check;

import io.distlock.LockKind;
import io.distlock.checker.History;
import io.distlock.checker.Invariant;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * What the client processes of a check run lock: which lock, which kind of it, and for a semaphore how
 * many permits.
 *
 * @param lock the lock implementation
 * @param kind the kind (only distlock has kinds other than {@link LockKind#LOCK})
 * @param permits the semaphore's permits (1 for other kinds)
 * @param threads loops per client process, sharing its client (each recorded as a process of its own)
 * @param localHandoffs the lock's {@link io.distlock.LockOptions#localHandoffs()}
 * @param backgroundLocks other locks each process holds on the same client for the whole run (not checked), so that
 *     the checked lock's renewals go out in batches with theirs
 * @param churnThreads threads per process that acquire and release other locks on the same client (not checked), so that
 *     the checked lock's requests go out in combined statements with theirs
 */
record Workload(CheckedLock lock, LockKind kind, int permits, int threads, int localHandoffs, int backgroundLocks, int churnThreads) {
    /** One thread per process, no local handoffs, no background locks, no churn. */
    Workload(CheckedLock lock, LockKind kind, int permits) {
        this(lock, kind, permits, 1, 0, 0, 0);
    }

    /** Returns how many shared holds may overlap in the history of this workload. */
    int sharedLimit() {
        return kind == LockKind.SEMAPHORE ? permits : History.UNLIMITED;
    }

    /** Returns the invariants this workload's lock claims: its lock's, and arrival order where the kind promises it. */
    Set<Invariant> claims() {
        Set<Invariant> claims = EnumSet.copyOf(lock.claims());
        if (promisesArrivalOrder()) {
            claims.add(Invariant.ORDER);
        }
        return claims;
    }

    /**
     * Returns whether waiters are granted in arrival order: fair locks, and read-write locks (a reader behind a
     * queued writer waits). Semaphore permits are granted in arrival order too, but two permits granted together
     * may learn of it in either order, and the checker judges only pairs with an exclusive side.
     */
    boolean promisesArrivalOrder() {
        return kind == LockKind.FAIR_LOCK || kind == LockKind.READ_WRITE_LOCK;
    }

    /** Returns the worker arguments that select the lock. */
    List<String> workerArgs() {
        return List.of("--lock", lock.id(), "--kind", kind.id(), "--permits", Integer.toString(permits), "--threads", Integer.toString(threads),
                "--local-handoffs", Integer.toString(localHandoffs), "--background-locks", Integer.toString(backgroundLocks), "--churn-threads", Integer.toString(churnThreads));
    }

    /** Returns e.g. {@code distlock}, {@code distlock read-write-lock} or {@code distlock semaphore (2 permits)}. */
    String describe() {
        return lock.id() + switch (kind) {
            case LOCK -> "";
            case SEMAPHORE -> " semaphore (" + permits + " permits)";
            default -> " " + kind.id();
        } + (threads > 1 ? ", " + threads + " threads per process" : "")
                + (threads > 1 ? (localHandoffs > 0 ? ", localHandoffs " + localHandoffs : ", no local handoffs") : "") // only threads hand on
                + (backgroundLocks > 0 ? ", " + backgroundLocks + " background locks per process" : "")
                + (churnThreads > 0 ? ", " + churnThreads + " churn threads per process" : "");
    }
}
