package io.distlock.checker;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Everything a check run recorded: the events of all processes, the faults, and the final state of
 * the register and of the fenced store.
 *
 * @param events all events, in any order (sorted by time on construction, stable per process)
 * @param faults the injected faults
 * @param startNanos when the workload started
 * @param endNanos when the workload was stopped
 * @param leaseNanos the lease time the lock was used with
 * @param finalRegister the unfenced register's value at the end
 * @param fencedLog the writes the fenced store accepted, in its order
 * @param sharedLimit how many shared holds (read holds, semaphore permits: acquisitions whose ok event
 *     carries the note {@link Checker#SHARED}) may overlap; {@link #UNLIMITED} for a read-write lock's readers
 */
public record History(List<Event> events, List<Fault> faults, long startNanos, long endNanos, long leaseNanos,
        long finalRegister, List<FencedWrite> fencedLog, int sharedLimit) {
    /** The {@link #sharedLimit()} of a lock whose shared holds may all overlap (a read-write lock's readers). */
    public static final int UNLIMITED = Integer.MAX_VALUE;

    /** A history of a lock without shared holds (or whose shared holds may all overlap). */
    public History(List<Event> events, List<Fault> faults, long startNanos, long endNanos, long leaseNanos, long finalRegister,
            List<FencedWrite> fencedLog) {
        this(events, faults, startNanos, endNanos, leaseNanos, finalRegister, fencedLog, UNLIMITED);
    }

    public History {
        if (sharedLimit < 1) {
            throw new IllegalArgumentException("sharedLimit must be at least 1, was " + sharedLimit);
        }
        List<Event> sorted = new ArrayList<>(events);
        sorted.sort(Comparator.comparingLong(e -> e.nanos() - startNanos));
        events = List.copyOf(sorted);
        faults = List.copyOf(faults);
        fencedLog = List.copyOf(fencedLog);
        if (endNanos - startNanos < 0) {
            throw new IllegalArgumentException("history ends before it starts");
        }
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
}
