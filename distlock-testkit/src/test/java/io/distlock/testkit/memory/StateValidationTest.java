package io.distlock.testkit.memory;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.LockClient;
import io.distlock.testkit.BackendHooks;
import io.distlock.testkit.ClientSettings;
import io.distlock.testkit.ContractSupport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;
import org.junit.platform.engine.discovery.DiscoverySelectors;

/**
 * The check after every contract test (issue 29, state validation) fails a test that leaves state on the servers and
 * passes one that does not: each runs as a contract test of its own, through JUnit's launcher, on the in-memory store.
 */
class StateValidationTest {
    private static final MemoryHooks HOOKS = new MemoryHooks(new MemoryDeployment("state-validation"), MemoryDeployment.PollingClients.class, true);
    private static final List<LockClient> OUTSIDE = new ArrayList<>();

    @AfterAll
    static void closeOutsideClients() {
        OUTSIDE.forEach(LockClient::close);
    }

    @Test
    void aTestWhoseLockOutlivesItsClientsFailsNamingWhatTheServerKeeps() {
        TestExecutionSummary summary = run(LeavesAHold.class);

        assertThat(summary.getFailures()).as("the leaky test fails, and only it").singleElement().satisfies(failure -> {
            assertThat(failure.getTestIdentifier().getDisplayName()).startsWith("holdsALockOnAClientTheTestDoesNotClose");
            assertThat(failure.getException()).hasMessageContaining("the servers still keep")
                    .hasMessageContaining("hold holdsALockOnAClientTheTestDoesNotClose-");
        });
    }

    @Test
    void aTestThatDeclaresWhatItLeavesAndATestWhoseLocksEndWithItsClientsPass() {
        TestExecutionSummary summary = run(LeavesNothing.class);

        assertThat(summary.getFailures()).isEmpty();
        assertThat(summary.getTestsSucceededCount()).as("every test of the class passed").isEqualTo(summary.getTestsFoundCount()).isGreaterThanOrEqualTo(2);
    }

    private static TestExecutionSummary run(Class<?> testClass) {
        SummaryGeneratingListener listener = new SummaryGeneratingListener();
        LauncherFactory.create().execute(LauncherDiscoveryRequestBuilder.request().selectors(DiscoverySelectors.selectClass(testClass)).build(), listener);
        return listener.getSummary();
    }

    private static LockClient outsideClient() {
        LockClient client = new MemoryDeployment.PollingClients().create(HOOKS.deployment().target(), ClientSettings.DEFAULTS);
        OUTSIDE.add(client);
        return client;
    }

    /** Holds a lock on a client the contract does not know of, so that it outlives the test's clients. Run by the launcher only. */
    static class LeavesAHold extends ContractSupport {
        @Override
        protected BackendHooks hooks() {
            return HOOKS;
        }

        @Test
        void holdsALockOnAClientTheTestDoesNotClose() throws Exception {
            outsideClient().getLock(uniqueName(), lease(Duration.ofMinutes(10), false)).acquire();
        }
    }

    /** The same, declared; and a lock of the test's own client, released when the client closes. Run by the launcher only. */
    static class LeavesNothing extends ContractSupport {
        @Override
        protected BackendHooks hooks() {
            return HOOKS;
        }

        @Test
        void holdsALockOnAClientTheTestDoesNotCloseAndSaysSo() throws Exception {
            String name = uniqueName();
            outsideClient().getLock(name, lease(Duration.ofMinutes(10), false)).acquire();
            leavesStateBehind(name);
        }

        @Test
        void holdsALockOnItsOwnClient() throws Exception {
            newClient().getLock(uniqueName(), lease(Duration.ofMinutes(10), false)).acquire();
        }
    }
}
