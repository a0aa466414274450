package io.distlock.shedlock;

import io.distlock.LockClient;
import io.distlock.redis.RedisLockClient;
import io.distlock.redis.testing.RedisServerExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link DistlockLockProvider} on a real redis-server. */
class RedisLockProviderTest extends LockProviderContract {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Override
    protected LockClient newClient() {
        return RedisLockClient.create(redis.server().uri());
    }
}
