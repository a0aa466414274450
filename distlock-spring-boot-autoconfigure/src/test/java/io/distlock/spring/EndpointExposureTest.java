package io.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.redis.testing.RedisServerExtension;
import io.distlock.spring.actuate.DistlockHealth;
import io.distlock.spring.actuate.DistlocksEndpoint;
import io.distlock.spring.autoconfigure.DistlockActuatorAutoConfiguration;
import io.distlock.spring.autoconfigure.DistlockAutoConfiguration;
import io.distlock.spring.autoconfigure.WithLockAutoConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The {@code distlocks} endpoint lists the names of the locks this instance holds (which may carry business keys): like
 * every Actuator endpoint but health, it exists only where the application exposes it. Runs on each Boot line's
 * Actuator (compat modules).
 */
class EndpointExposureTest {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DistlockAutoConfiguration.class, WithLockAutoConfiguration.class,
                    DistlockActuatorAutoConfiguration.class))
            .withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.server().port());

    @Test
    void notThereByDefaultWhileTheHealthComponentIs() {
        runner.run(context -> {
            assertThat(context).doesNotHaveBean(DistlocksEndpoint.class);
            assertThat(context).hasSingleBean(DistlockHealth.class);
        });
    }

    @Test
    void thereWhenTheApplicationExposesItOverHttp() {
        runner.withPropertyValues("management.endpoints.web.exposure.include=health,distlocks")
                .run(context -> assertThat(context).hasSingleBean(DistlocksEndpoint.class));
    }

    @Test
    void thereWhenTheApplicationExposesItOverJmx() {
        runner.withPropertyValues("spring.jmx.enabled=true", "management.endpoints.jmx.exposure.include=*")
                .run(context -> assertThat(context).hasSingleBean(DistlocksEndpoint.class));
    }
}
