package io.distlock.redis;

import io.distlock.testkit.BackendControl;
import io.distlock.testkit.LeaseLockContract;
import io.distlock.testkit.LockClientFactory;
import io.distlock.testkit.RedisServer;
import io.distlock.testkit.RedisServerExtension;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The whole lease-lock contract against a real standalone redis-server. */
class RedisLockContractTest extends LeaseLockContract {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Override
    protected Class<? extends LockClientFactory> factoryClass() {
        return RedisClientFactory.class;
    }

    @Override
    protected String target() {
        return redis.server().uri();
    }

    @Override
    protected BackendControl backend() {
        return redis.server();
    }

    @Override
    protected boolean lockedInBackend(String name) {
        RedisClient raw = RedisClient.create(target());
        try (StatefulRedisConnection<String, String> connection = raw.connect()) {
            return RedisKeys.isHeldValue(connection.sync().get(RedisKeys.defaults().lockKey(name)));
        } finally {
            raw.shutdown();
        }
    }
}
