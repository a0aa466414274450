package io.distlock.spring;

import io.distlock.Lease;
import java.util.Optional;

/** One acquisition under an {@link AcquireObservation}, with its outcome; shared by {@code @WithLock} and {@link LockTemplate}. */
final class ObservedAcquire {
    private ObservedAcquire() {
    }

    /** An acquisition. */
    @FunctionalInterface
    interface Acquiring {
        Optional<Lease> acquire() throws InterruptedException;
    }

    /**
     * Runs {@code acquiring} observed as lock {@code tag} on {@code backend}: {@code acquired}, else {@code skipped} or
     * {@code timeout} as {@code skipping} says, or the error.
     */
    static Optional<Lease> run(AcquireObservation observation, String tag, String backend, boolean skipping, Acquiring acquiring)
            throws InterruptedException {
        AcquireObservation.Scope scope = observation.start(tag, backend);
        Optional<Lease> acquired;
        try {
            acquired = acquiring.acquire();
        } catch (InterruptedException | RuntimeException | Error e) {
            scope.failed(e);
            throw e;
        }
        scope.finished(acquired.isPresent() ? "acquired" : skipping ? "skipped" : "timeout");
        return acquired;
    }
}
