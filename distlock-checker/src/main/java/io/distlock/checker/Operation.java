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
