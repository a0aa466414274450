package io.distlock.redis;

import io.distlock.redis.testing.RedisServerExtension;
import io.distlock.testkit.BackendContract;
import io.distlock.testkit.BackendHooks;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Every tier of the contract, every kind, on a real standalone redis-server. */
class RedisLockContractTest extends BackendContract {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Override
    protected BackendHooks hooks() {
        return RedisHooks.standalone(redis);
    }
}
