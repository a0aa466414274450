package io.distlock.testkit.memory;

import io.distlock.testkit.BackendHooks;
import io.distlock.testkit.LockContract;

/**
 * The base contract on the engine alone, over an in-memory store that acquires by queueing (like ZooKeeper): like
 * ZooKeeper, the queue cannot tell a removed ticket from a lost one, so force-unlocked holders are told only that
 * their lock is gone.
 */
class QueueingMemoryLockContractTest extends LockContract {
    private static final MemoryHooks HOOKS = new MemoryHooks(new MemoryDeployment("contract-queueing"), MemoryDeployment.QueueingClients.class, false);

    @Override
    protected BackendHooks hooks() {
        return HOOKS;
    }
}
