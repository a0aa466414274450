package io.distlock.testkit.memory;

import io.distlock.internal.MemoryStore;
import io.distlock.testkit.LockClientFactory;
import io.distlock.testkit.LockContract;
import io.distlock.testkit.TestDeployment;

/** The base contract on the engine alone, over an in-memory store that acquires by queueing (like ZooKeeper). */
class QueueingMemoryLockContractTest extends LockContract {
    private static final MemoryDeployment DEPLOYMENT = new MemoryDeployment("contract-queueing");

    @Override
    protected Class<? extends LockClientFactory> factoryClass() {
        return MemoryDeployment.QueueingClients.class;
    }

    @Override
    protected TestDeployment deployment() {
        return DEPLOYMENT;
    }

    @Override
    protected boolean tellsForceUnlocks() {
        return false; // like ZooKeeper, the queue cannot tell a removed ticket from a lost one
    }

    @Override
    protected boolean lockedInBackend(String name) {
        return MemoryStore.named(DEPLOYMENT.target()).isHeld(name);
    }
}
