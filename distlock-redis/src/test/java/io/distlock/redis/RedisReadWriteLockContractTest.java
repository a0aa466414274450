package io.distlock.redis;

import io.distlock.testkit.LockClientFactory;
import io.distlock.testkit.ReadWriteLockContract;
import io.distlock.testkit.RedisServerExtension;
import io.distlock.testkit.TestDeployment;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The read-write contract on a real standalone redis-server. */
class RedisReadWriteLockContractTest extends ReadWriteLockContract {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Override
    protected Class<? extends LockClientFactory> factoryClass() {
        return RedisClientFactory.class;
    }

    @Override
    protected TestDeployment deployment() {
        return redis;
    }

    @Override
    protected boolean lockedInBackend(String name) {
        return RawLockState.queueHeld(redis.server().port(), name, "rw");
    }
}
