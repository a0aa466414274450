package io.distlock.spring.actuate;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/** The {@code distlock} health indicator on Boot 4 (its health API, in spring-boot-health). */
public class Boot4DistlockHealthIndicator implements HealthIndicator {
    private final DistlockHealth health;

    public Boot4DistlockHealthIndicator(DistlockHealth health) {
        this.health = health;
    }

    @Override
    public Health health() {
        DistlockHealth.Verdict verdict = health.check();
        return (verdict.up() ? Health.up() : Health.down()).withDetails(verdict.details()).build();
    }
}
