package io.distlock.checker;

import java.util.Arrays;
import java.util.stream.Collectors;

/** What an {@link Event} is about: a step of the workload, or something a client learned. */
public enum Operation {
    /** Acquiring the lock. */
    ACQUIRE("acquire"),
    /** Reading the unfenced register. */
    READ("read"),
    /** Writing the unfenced register (read value + 1). */
    WRITE("write"),
    /** Writing to the fenced store, which rejects tokens lower than the highest it accepted. */
    FENCED_WRITE("fenced-write"),
    /** Releasing the lock. */
    RELEASE("release"),
    /** The client was told its lease is gone ({@code onLost}). */
    LOST("lost"),
    /**
     * The holder's lease runs until the time in the event's value (its local deadline, on the events' clock):
     * recorded when the lock was granted and after each confirmed renewal. An overlap that began after a
     * holder's last recorded deadline is one the lease lock never promised to prevent.
     */
    LEASE("lease"),
    /**
     * The acquiring client waits in the server's queue: its join was answered "not yet" (seen by the worker in the
     * client's wait). From then on a later arrival must not be granted before it, on a lock that grants in order.
     */
    QUEUED("queued"),
    /** The client found its lease invalid and skipped its writes. */
    ABORT("abort"),
    /** A store operation failed in a way that fits no other step. */
    STORE("store");

    private final String id;

    Operation(String id) {
        this.id = id;
    }

    /** Returns the name used in history files and reports, e.g. {@code fenced-write}. */
    public String id() {
        return id;
    }

    /** Returns whether this operation writes (to the register or the fenced store). */
    public boolean isWrite() {
        return this == WRITE || this == FENCED_WRITE;
    }

    /**
     * Returns the operation with this name.
     *
     * @throws IllegalArgumentException naming the known operations
     */
    public static Operation fromId(String id) {
        for (Operation operation : values()) {
            if (operation.id.equals(id)) {
                return operation;
            }
        }
        throw new IllegalArgumentException("unknown operation '" + id + "'; known: "
                + Arrays.stream(values()).map(Operation::id).collect(Collectors.joining(", ")));
    }
}
