package io.distlock.spring;

/**
 * Observes each {@link WithLock} acquisition: started before the wait, finished with its outcome
 * ({@code acquired}, {@code timeout}, {@code skipped}) or an error. The starter implements it with a
 * Micrometer {@code Observation} named {@code distlock.acquire} when an {@code ObservationRegistry} is present.
 */
public interface AcquireObservation {
    /** Observes nothing. */
    AcquireObservation NONE = (name, backend) -> new Scope() {
        @Override
        public void finished(String outcome) {}

        @Override
        public void failed(Throwable error) {}
    };

    /**
     * Starts observing the acquisition of a lock.
     *
     * @param name the annotation's name (never the evaluated key: it would make a tag value per call)
     * @param backend the backend, e.g. {@code redis}
     */
    Scope start(String name, String backend);

    /** One acquisition under observation; exactly one of its methods is called. */
    interface Scope {
        /** The wait ended: {@code acquired}, {@code timeout} or {@code skipped}. */
        void finished(String outcome);

        /** The acquisition failed with an error (backend unavailable, interrupted, ...). */
        void failed(Throwable error);
    }
}
