package io.distlock.testkit.memory;

import io.distlock.testkit.BackendHooks;
import io.distlock.testkit.LockContract;

/** The base contract on the engine alone, over an in-memory store that acquires by asking (like Redis). */
class PollingMemoryLockContractTest extends LockContract {
    private static final MemoryHooks HOOKS = new MemoryHooks(new MemoryDeployment("contract-polling"), MemoryDeployment.PollingClients.class, true);

    @Override
    protected BackendHooks hooks() {
        return HOOKS;
    }
}
