package io.distlock.integration;

import io.distlock.LockClient;
import io.distlock.redis.RedisLockClient;
import io.distlock.redis.testing.RedisServerExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link DistlockLockRegistry} on a real redis-server. */
class RedisLockRegistryTest extends LockRegistryContract {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Override
    protected LockClient newClient() {
        return RedisLockClient.create(redis.server().uri());
    }

    @Override
    protected io.distlock.servers.BackendControl server() {
        return redis.control();
    }
}
