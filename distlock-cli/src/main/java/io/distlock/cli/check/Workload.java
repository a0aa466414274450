package io.distlock.cli.check;

import io.distlock.checker.History;
import java.util.List;

/**
 * What the client processes of a check run lock: which lock, which kind of it, and for a semaphore how
 * many permits.
 *
 * @param lock the lock implementation
 * @param kind the kind (only distlock has kinds other than {@link CheckedKind#PLAIN})
 * @param permits the semaphore's permits (1 for other kinds)
 */
record Workload(CheckedLock lock, CheckedKind kind, int permits) {
    /** Returns how many shared holds may overlap in the history of this workload. */
    int sharedLimit() {
        return kind == CheckedKind.SEMAPHORE ? permits : History.UNLIMITED;
    }

    /** Returns the worker arguments that select the lock. */
    List<String> workerArgs() {
        return List.of("--lock", lock.id(), "--kind", kind.id(), "--permits", Integer.toString(permits));
    }

    /** Returns e.g. {@code distlock}, {@code distlock rw} or {@code distlock semaphore (2 permits)}. */
    String describe() {
        return lock.id() + switch (kind) {
            case PLAIN -> "";
            case SEMAPHORE -> " semaphore (" + permits + " permits)";
            default -> " " + kind.id();
        };
    }
}
