package io.distlock.redis;

import io.distlock.testkit.LockClientFactory;
import io.distlock.testkit.LockInspectorContract;
import io.distlock.testkit.RedisServerExtension;
import io.distlock.testkit.TestDeployment;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The inspector on a real standalone redis-server. */
class RedisLockInspectorTest extends LockInspectorContract {
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
        return RawLockState.held(redis.server().port(), name);
    }
}
