package io.distlock.redis;

import io.distlock.testkit.LockClientFactory;
import io.distlock.testkit.SemaphoreContract;
import io.distlock.testkit.RedisServerExtension;
import io.distlock.testkit.TestDeployment;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The semaphore contract on a real standalone redis-server. */
class RedisSemaphoreContractTest extends SemaphoreContract {
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
        return RawLockState.queueHeld(redis.server().port(), name, "sem");
    }
}
