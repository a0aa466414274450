package io.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.distlock.LockClient;
import io.distlock.servers.Await;
import io.distlock.spring.autoconfigure.DistlockAutoConfiguration;
import io.distlock.spring.autoconfigure.WithLockAutoConfiguration;
import io.distlock.zookeeper.ZooKeeperLockClient;
import io.distlock.zookeeper.testing.ZooKeeperServerExtension;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A lease lost after its method returned, while {@code minHold} keeps it (ZooKeeper: the lock lives with the session, so
 * the starter holds it until the minHold ends), is no warning that the method ran unprotected: it is logged at DEBUG.
 */
class MinHoldLossLogTest {
    @RegisterExtension
    static final ZooKeeperServerExtension zookeeper = new ZooKeeperServerExtension();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DistlockAutoConfiguration.class, WithLockAutoConfiguration.class))
            .withUserConfiguration(Jobs.class)
            .withPropertyValues("distlock.backend=zookeeper", "distlock.zookeeper.connect-string=" + zookeeper.directTarget(),
                    "distlock.zookeeper.namespace=minhold");

    @Configuration(proxyBeanMethods = false)
    static class Jobs {
        @Bean
        Report report() {
            return new Report();
        }
    }

    public static class Report {
        @WithLock(name = "report", minHold = "60s")
        public long run() {
            return LockContext.currentLease().fencingToken();
        }
    }

    @Test
    void aLeaseLostAfterTheMethodReturnedInsideMinHoldIsLoggedAtDebugNotAsLostWhileTheMethodRan() {
        assumeTrue(LoggerFactory.getLogger(WithLockInterceptor.class).isDebugEnabled(), "needs the test resources' simplelogger.properties");
        try (StandardErrorCopy output = new StandardErrorCopy();
                LockClient operator = ZooKeeperLockClient.builder().connectString(zookeeper.directTarget()).namespace("minhold").build()) {
            runner.run(context -> {
                assertThat(context.getBean(Report.class).run()).isPositive();
                assertThat(operator.getLock("report").isLocked()).as("kept for minHold").isTrue();
                operator.getLock("report").forceUnlock(); // the lease is lost after the method returned
                Await.until(Duration.ofSeconds(20), "the loss is logged",
                        () -> output.text().contains("the lease on 'report' was lost after the method returned"));
                assertThat(output.text()).doesNotContain("was lost while the method ran");
            });
        }
    }
}
