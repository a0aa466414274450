package io.distlock.spring.autoconfigure;

import io.distlock.spring.AcquireObservation;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;

/**
 * {@code distlock.acquire} observations (a timer, and a span when tracing is on), low-cardinality keys
 * {@code distlock.backend}, {@code distlock.name} and {@code outcome} (acquired, timeout, skipped, error).
 */
final class MicrometerAcquireObservation implements AcquireObservation {
    private final ObservationRegistry registry;

    MicrometerAcquireObservation(ObservationRegistry registry) {
        this.registry = registry;
    }

    @Override
    public Scope start(String name, String backend) {
        Observation observation = Observation.createNotStarted("distlock.acquire", registry)
                .contextualName("distlock acquire " + name)
                .lowCardinalityKeyValue("distlock.backend", backend)
                .lowCardinalityKeyValue("distlock.name", name)
                .start();
        return new Scope() {
            @Override
            public void finished(String outcome) {
                observation.lowCardinalityKeyValue("outcome", outcome);
                observation.stop();
            }

            @Override
            public void failed(Throwable error) {
                observation.lowCardinalityKeyValue("outcome", "error");
                observation.error(error);
                observation.stop();
            }
        };
    }
}
