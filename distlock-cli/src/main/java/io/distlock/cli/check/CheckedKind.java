package io.distlock.cli.check;

import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * The kinds of distlock lock {@code distlock check} can check (option {@code --kind}): each worker
 * cycle takes an exclusive hold (and does the register and fenced-store writes) or a shared one (reads
 * the register and works, writes nothing).
 */
enum CheckedKind {
    /** {@code getLock}: every hold exclusive. */
    PLAIN("plain"),
    /** {@code getFairLock}: every hold exclusive, granted in arrival order. */
    FAIR("fair"),
    /** {@code getReadWriteLock}: seven in ten holds are reads (shared), the rest writes (exclusive). */
    RW("rw"),
    /** {@code getSemaphore}: every hold is one of {@code --permits} shared permits. */
    SEMAPHORE("semaphore");

    private final String id;

    CheckedKind(String id) {
        this.id = id;
    }

    /** Returns the name used on the command line. */
    String id() {
        return id;
    }

    /** Returns the kind with this name, or throws naming the known ones. */
    static CheckedKind fromId(String id) {
        for (CheckedKind kind : values()) {
            if (kind.id.equals(id)) {
                return kind;
            }
        }
        throw new IllegalArgumentException("unknown kind '" + id + "'; choose one of "
                + Arrays.stream(values()).map(CheckedKind::id).collect(Collectors.joining(", ")));
    }
}
