package io.distlock.integration;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.springframework.integration.support.locks.LockRegistry;

/** The registry's tests run on the Spring Integration line each build means them to (set by the build). */
class SpringIntegrationVersionTest {
    @Test
    void theTestsRunOnTheExpectedSpringIntegration() {
        String expected = System.getProperty("distlock.expect.spring-integration", "");
        assertThat(expected).as("the build names the Spring Integration these tests must run on").isNotBlank();
        assertThat(LockRegistry.class.getPackage().getImplementationVersion()).startsWith(expected);
        assertThat(Si7.present()).as("time-to-live locks exist from 7.0 on").isEqualTo(!expected.startsWith("6."));
    }
}
