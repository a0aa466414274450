package io.distlock.etcd.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * What an etcd test class does on a machine without etcd: each of its tests is skipped saying why (a
 * developer's build), or the class fails when the etcd tests are required (CI) - never "0 run, 0 skipped".
 * The class runs in a child JVM whose DISTLOCK_ETCD points at no binary.
 */
class EtcdClusterExtensionTest {

    @Test
    void withoutEtcdTheClassIsSkippedSayingHowToInstallIt() throws Exception {
        String report = runWithoutEtcd(false);
        assertThat(report).contains("SKIPPED ETCD TESTS SKIPPED: no etcd binary found; install").contains("started=0 failed=0");
    }

    @Test
    void withoutEtcdButWithTheEtcdTestsRequiredTheClassFails() throws Exception {
        String report = runWithoutEtcd(true);
        assertThat(report).contains("FAILED the etcd tests must run here").doesNotContain("SKIPPED");
    }

    private static String runWithoutEtcd(boolean required) throws IOException, InterruptedException {
        ProcessBuilder child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), Probe.class.getName()).redirectErrorStream(true);
        Map<String, String> env = child.environment();
        env.put("DISTLOCK_ETCD", "/nonexistent/etcd");
        env.put("DISTLOCK_REQUIRE_ETCD", Boolean.toString(required));
        Process process = child.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("the child JVM ends").isTrue();
        return output;
    }

    /** Runs {@link EtcdSample} with JUnit and prints what happened to it, one line per event. */
    static final class Probe {
        public static void main(String[] args) {
            Launcher launcher = LauncherFactory.create();
            int[] started = new int[1];
            int[] failed = new int[1];
            launcher.execute(LauncherDiscoveryRequestBuilder.request().selectors(DiscoverySelectors.selectClass(EtcdSample.class)).build(),
                    new TestExecutionListener() {
                        @Override
                        public void executionSkipped(TestIdentifier identifier, String reason) {
                            System.out.println("SKIPPED " + reason);
                        }

                        @Override
                        public void executionStarted(TestIdentifier identifier) {
                            started[0] += identifier.isTest() ? 1 : 0;
                        }

                        @Override
                        public void executionFinished(TestIdentifier identifier, TestExecutionResult result) {
                            if (result.getStatus() == TestExecutionResult.Status.FAILED) {
                                failed[0]++;
                                System.out.println("FAILED " + result.getThrowable().map(Throwable::getCause).map(Throwable::getMessage).orElse("?"));
                            }
                        }
                    });
            System.out.println("started=" + started[0] + " failed=" + failed[0]);
        }
    }

    /** An etcd test class (nested, so that surefire itself does not run it). */
    static final class EtcdSample {
        @RegisterExtension
        static final EtcdClusterExtension etcd = new EtcdClusterExtension();

        @Test
        void needsEtcd() {
            assertThat(etcd.target()).isNotBlank();
        }
    }
}
