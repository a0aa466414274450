package io.distlock.testkit.memory;

import io.distlock.internal.MemoryStore;
import io.distlock.testkit.LockClientFactory;
import io.distlock.testkit.LockContract;
import io.distlock.testkit.TestDeployment;

/** The base contract on the engine alone, over an in-memory store that acquires by asking (like Redis). */
class PollingMemoryLockContractTest extends LockContract {
    private static final MemoryDeployment DEPLOYMENT = new MemoryDeployment("contract-polling");

    @Override
    protected Class<? extends LockClientFactory> factoryClass() {
        return MemoryDeployment.PollingClients.class;
    }

    @Override
    protected TestDeployment deployment() {
        return DEPLOYMENT;
    }

    @Override
    protected boolean lockedInBackend(String name) {
        return MemoryStore.named(DEPLOYMENT.target()).isHeld(name);
    }
}
