package io.distlock.checker;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * Everything a check run recorded: the events of all processes, the faults, the final state of the
 * register and of the fenced store, and the rules the run's lock and deployment are judged by.
 *
 * @param events all events, in any order (sorted by time on construction, stable per process)
 * @param faults the injected faults
 * @param startNanos when the workload started
 * @param endNanos when the workload was stopped
 * @param leaseNanos the lease time the lock was used with
 * @param finalRegister the unfenced register's value at the end
 * @param fencedLog the writes the fenced store accepted, in its order
 * @param rules what the lock and the deployment allow (kept with the history, so that a replay judges the same)
 */
public record History(List<Event> events, List<Fault> faults, long startNanos, long endNanos, long leaseNanos,
        long finalRegister, List<FencedWrite> fencedLog, Rules rules) {
    /** The {@link Rules#sharedLimit()} of a lock whose shared holds may all overlap (a read-write lock's readers). */
    public static final int UNLIMITED = Integer.MAX_VALUE;
    /**
     * Process ids of the threads of one client process: thread {@code t} of client {@code c} records as
     * {@code c + t * THREAD_STRIDE}; faults name the client ({@link #clientOf}).
     */
    public static final int THREAD_STRIDE = 100_000;

    /** Returns the client process (the one faults name) of a recorded process id. */
    public static int clientOf(int process) {
        return process % THREAD_STRIDE;
    }

    /**
     * What a run's lock and deployment allow, which the history alone does not say.
     *
     * @param sharedLimit how many shared holds (read holds, semaphore permits: acquisitions whose ok event
     *     carries the note {@link Checker#SHARED}) may overlap; {@link #UNLIMITED} for a read-write lock's readers
     * @param lockLosingFaults the faults after which the deployment does not promise that held locks survive
     *     (Redis restarted without persistence, a failover without replica acknowledgement): an overlap across
     *     one of them is no violation
     * @param requeueFaults the faults that may send a waiter to the back of the queue without losing any lock: a
     *     ZooKeeper member's loss suspends the connections of the clients on it, and with the default
     *     {@code waitForReconnect(false)} a client counts a suspension as the end of its session, so its waiters join
     *     again at the tail (holders let go and are told). A waiter overtaken across one of these is no violation of
     *     arrival order; an overlap across one still is
     * @param orderBoundNanos for a lock that grants in arrival order (a fair lock, a read-write lock): how long an
     *     acquire must have been pending to be surely queued at the server (its join answered: the operation
     *     timeout, plus a margin for the client to send it); 0 for a lock whose grants need not follow arrival
     *     order (see {@link Invariant#ORDER})
     * @param waitNanos how long each acquire waits for the lock; 0 when unknown. A waiter whose wait ran out leaves
     *     the queue at its deadline, before its call returns, so a grant after the deadline does not overtake it
     */
    public record Rules(int sharedLimit, Set<FaultKind> lockLosingFaults, Set<FaultKind> requeueFaults, long orderBoundNanos,
            long waitNanos) {
        /** An exclusive lock (or one whose shared holds may all overlap), no fault that loses locks, no order promised. */
        public static final Rules DEFAULT = new Rules(UNLIMITED, Set.of(), Set.of(), 0, 0);

        public Rules {
            if (sharedLimit < 1) {
                throw new IllegalArgumentException("sharedLimit must be at least 1, was " + sharedLimit);
            }
            if (waitNanos < 0) {
                throw new IllegalArgumentException("waitNanos must not be negative, was " + waitNanos);
            }
            if (orderBoundNanos < 0) {
                throw new IllegalArgumentException("orderBoundNanos must not be negative, was " + orderBoundNanos);
            }
            lockLosingFaults = lockLosingFaults.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(lockLosingFaults));
            requeueFaults = requeueFaults.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(requeueFaults));
        }

        /** Returns these rules with another shared limit. */
        public Rules withSharedLimit(int limit) {
            return new Rules(limit, lockLosingFaults, requeueFaults, orderBoundNanos, waitNanos);
        }

        /** Returns these rules with other faults that lose locks. */
        public Rules withLockLosingFaults(Set<FaultKind> kinds) {
            return new Rules(sharedLimit, kinds, requeueFaults, orderBoundNanos, waitNanos);
        }

        /** Returns these rules for a lock that grants in arrival order, judged for acquires pending at least {@code nanos}. */
        public Rules withOrderBound(long nanos) {
            return new Rules(sharedLimit, lockLosingFaults, requeueFaults, nanos, waitNanos);
        }

        /** Returns these rules with other faults that may send a waiter to the back of the queue. */
        public Rules withRequeueFaults(Set<FaultKind> kinds) {
            return new Rules(sharedLimit, lockLosingFaults, kinds, orderBoundNanos, waitNanos);
        }

        /** Returns these rules for acquires that each wait {@code nanos} for the lock. */
        public Rules withWait(long nanos) {
            return new Rules(sharedLimit, lockLosingFaults, requeueFaults, orderBoundNanos, nanos);
        }
    }

    /** A history judged by the {@linkplain Rules#DEFAULT default rules}. */
    public History(List<Event> events, List<Fault> faults, long startNanos, long endNanos, long leaseNanos, long finalRegister,
            List<FencedWrite> fencedLog) {
        this(events, faults, startNanos, endNanos, leaseNanos, finalRegister, fencedLog, Rules.DEFAULT);
    }

    public History {
        List<Event> sorted = new ArrayList<>(events);
        sorted.sort(Comparator.comparingLong(e -> e.nanos() - startNanos));
        events = List.copyOf(sorted);
        faults = List.copyOf(faults);
        fencedLog = List.copyOf(fencedLog);
        if (endNanos - startNanos < 0) {
            throw new IllegalArgumentException("history ends before it starts");
        }
    }

    /** Returns how many shared holds may overlap ({@link Rules#sharedLimit()}). */
    public int sharedLimit() {
        return rules.sharedLimit();
    }

    /**
     * Returns the faults near an interval: those active at some time from three leases before it until its
     * end, the window in which a fault can have caused what happened in the interval (a paused holder's lease
     * runs out up to a lease after the pause began; a restarted server forgets holds granted before).
     */
    public List<Fault> faultsNear(long fromNanos, long toNanos) {
        long from = Math.min(fromNanos, toNanos) - leaseNanos * 3;
        long to = Math.max(fromNanos, toNanos);
        return faults.stream().filter(fault -> fault.overlaps(from, to)).toList();
    }

    /** Returns the faults active at some time from {@code fromNanos} to {@code toNanos}, both included. */
    public List<Fault> faultsBetween(long fromNanos, long toNanos) {
        return faults.stream().filter(fault -> fault.overlaps(fromNanos, toNanos)).toList();
    }
}
