package io.distlock.spring.actuate;

import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;

/** The {@code distlock} health indicator on Boot 3.5 (its health API, in spring-boot-actuator). */
public class Boot3DistlockHealthIndicator implements HealthIndicator {
    private final DistlockHealth health;

    public Boot3DistlockHealthIndicator(DistlockHealth health) {
        this.health = health;
    }

    @Override
    public Health health() {
        DistlockHealth.Verdict verdict = health.check();
        return (verdict.up() ? Health.up() : Health.down()).withDetails(verdict.details()).build();
    }
}
