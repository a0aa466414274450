package io.distlock.testkit.memory;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.LockClients;
import io.distlock.testkit.BackendHooks;
import io.distlock.testkit.BackendProviderContract;
import org.junit.jupiter.api.Test;

/**
 * The in-memory store through the registry, held to the same contract as every backend's provider: the example of
 * docs/adding-a-backend.md, registered by a line in this module's test resources.
 */
class MemoryBackendProviderTest extends BackendProviderContract {
    private static final MemoryHooks HOOKS = new MemoryHooks(new MemoryDeployment("registry"), MemoryDeployment.PollingClients.class, true);

    @Override
    protected BackendHooks hooks() {
        return HOOKS;
    }

    @Test
    void aTargetWithoutAStoreNameIsRefusedNamingTheForm() {
        assertThatThrownBy(() -> LockClients.open("memory://")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("memory://NAME");
    }
}
