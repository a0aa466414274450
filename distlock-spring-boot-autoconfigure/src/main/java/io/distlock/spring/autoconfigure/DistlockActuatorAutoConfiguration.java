package io.distlock.spring.autoconfigure;

import io.distlock.LockClient;
import io.distlock.spring.HeldLocks;
import io.distlock.spring.actuate.Boot3DistlockHealthIndicator;
import io.distlock.spring.actuate.Boot4DistlockHealthIndicator;
import io.distlock.spring.actuate.DistlockHealth;
import io.distlock.spring.actuate.DistlocksEndpoint;
import io.distlock.spring.actuate.CachedDoctor;
import io.distlock.spring.actuate.DoctorTarget;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * With Actuator: the read-only {@code distlocks} endpoint (locks this instance holds) and the
 * {@code distlock} health indicator, on Boot 3.5's health API or Boot 4's, whichever is present. The
 * indicator is in no health group but the default one: Boot puts only liveness and readiness state in
 * those groups unless configured to. With {@code distlock.doctor.enabled}, the indicator also shows what
 * {@code distlock doctor} finds on the server of the auto-configured client (its {@link DoctorTarget}).
 */
@AutoConfiguration(after = DistlockAutoConfiguration.class)
@ConditionalOnClass(name = "org.springframework.boot.actuate.endpoint.annotation.Endpoint")
@ConditionalOnBean({LockClient.class, HeldLocks.class})
public class DistlockActuatorAutoConfiguration {
    /** The bean names of the LockClient and the DoctorTarget the starter makes. */
    private static final String STARTERS_CLIENT = "distlockClient";
    private static final String STARTERS_TARGET = "distlockDoctorTarget";

    /**
     * Only where the application exposes it (web or JMX): it lists the names of the locks held, which may carry business
     * keys, and like every Actuator endpoint but health it is exposed only on request
     * ({@code management.endpoints.web.exposure.include=distlocks}).
     */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnAvailableEndpoint
    DistlocksEndpoint distlocksEndpoint(HeldLocks held) {
        return new DistlocksEndpoint(held);
    }

    @Bean
    @ConditionalOnMissingBean
    DistlockHealth distlockHealth(LockClient client, HeldLocks held, DistlockProperties properties, ListableBeanFactory beans) {
        if (!properties.getDoctor().isEnabled()) {
            return new DistlockHealth(client, held);
        }
        // The starter's DoctorTarget describes the client the starter built; with the application's own LockClient it
        // may name another server, so it counts only beside the starter's client. The application's own DoctorTarget
        // (the starter's backs off when there is one) always counts.
        boolean startersClient = java.util.Arrays.asList(beans.getBeanNamesForType(LockClient.class)).contains(STARTERS_CLIENT);
        DoctorTarget target = null;
        for (String name : beans.getBeanNamesForType(DoctorTarget.class)) {
            if (!name.equals(STARTERS_TARGET) || startersClient) {
                target = beans.getBean(name, DoctorTarget.class);
            }
        }
        if (target == null) {
            throw new IllegalStateException("distlock.doctor.enabled is true but the LockClient is the application's own bean: the doctor "
                    + "does not know its server; define a DoctorTarget bean (the target and options it was opened with), or set "
                    + "distlock.doctor.enabled=false");
        }
        return new DistlockHealth(client, held, new CachedDoctor(target, properties.getDoctor().getInterval()));
    }

    /** Boot 4: health indicators live in spring-boot-health. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
    static class Boot4Health {
        @Bean
        @ConditionalOnMissingBean(name = "distlockHealthIndicator")
        Boot4DistlockHealthIndicator distlockHealthIndicator(DistlockHealth health) {
            return new Boot4DistlockHealthIndicator(health);
        }
    }

    /** Boot 3.5: health indicators live in spring-boot-actuator. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.actuate.health.HealthIndicator")
    static class Boot3Health {
        @Bean
        @ConditionalOnMissingBean(name = "distlockHealthIndicator")
        Boot3DistlockHealthIndicator distlockHealthIndicator(DistlockHealth health) {
            return new Boot3DistlockHealthIndicator(health);
        }
    }
}
