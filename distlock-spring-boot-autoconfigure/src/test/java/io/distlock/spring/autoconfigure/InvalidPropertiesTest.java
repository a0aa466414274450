package io.distlock.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Every invalid distlock.* value stops the application at startup with a failure that names the property and says
 * what it must be; none reaches a client. No server is needed: the properties fail to bind before any client opens.
 */
class InvalidPropertiesTest {
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DistlockAutoConfiguration.class, WithLockAutoConfiguration.class));

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(delimiter = '|', value = {
            "distlock.lease-time|-5s|must be at least 10 ms",
            "distlock.lease-time|1ms|must be at least 10 ms",
            "distlock.wait-time|-1s|must be zero or more",
            "distlock.local-handoffs|-1|must be between 0 and 1024",
            "distlock.local-handoffs|1025|must be between 0 and 1024",
            "distlock.operation-timeout|0s|must be positive",
            "distlock.backend|' '|must not be blank",
            "distlock.target|' '|must not be blank",
            "distlock.namespace|' '|must not be blank",
            "distlock.redis.min-replicas|-1|must be 0",
            "distlock.redis.key-prefix|' '|must not be blank",
            "distlock.zookeeper.namespace|a/b|one path segment",
            "distlock.zookeeper.session-timeout|0s|must be positive",
            "distlock.jdbc.table|' '|must not be blank",
            "distlock.doctor.interval|0s|must be positive",
            "distlock.lease-time|soon|soon",
            "distlock.redis.min-replicas|many|many"})
    void anInvalidValueFailsTheStartupNamingThePropertyAndWhatItMustBe(String property, String value, String says) {
        // a target nothing listens on, so that a value that did bind could never reach a server of the machine's
        ApplicationContextRunner configured = property.equals("distlock.target") ? runner : runner.withPropertyValues("distlock.target=redis://127.0.0.1:1");
        configured.withPropertyValues(property + "=" + value).run(context -> {
            assertThat(context).hasFailed();
            String failure = messages(context.getStartupFailure());
            assertThat(failure).contains(property).contains(says);
        });
    }

    @Test
    void theIdeKnowsTheBackendsAndTargetShapesFromTheMetadata() throws Exception {
        try (InputStream in = getClass().getClassLoader().getResourceAsStream("META-INF/spring-configuration-metadata.json")) {
            String metadata = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            assertThat(metadata).contains("\"hints\"").contains("\"name\": \"distlock.backend\"").contains("\"value\": \"zookeeper\"")
                    .contains("\"value\": \"redis-sentinel:\\/\\/localhost:26379#mymaster\""); // the processor escapes '/' 
        }
    }

    private static String messages(Throwable failure) {
        StringBuilder all = new StringBuilder();
        for (Throwable t = failure; t != null; t = t.getCause()) {
            all.append(t.getMessage()).append('\n');
        }
        return all.toString();
    }
}
