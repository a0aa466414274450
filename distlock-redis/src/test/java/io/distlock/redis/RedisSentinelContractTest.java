package io.distlock.redis;

import io.distlock.redis.testing.RedisSentinelExtension;
import io.distlock.testkit.BackendContract;
import io.distlock.testkit.BackendHooks;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Every tier of the contract, every kind, through Sentinel (a master, one replica, three Sentinels). The Sentinels
 * wait a minute before declaring the master down, so the contract's own outages (stop, pause, restart of the master)
 * are outages, not failovers; failovers are {@link RedisFailoverTest}'s.
 */
@Tag(BackendContract.ANOTHER_DEPLOYMENT) // fair and write tiers in -Pslow; on a standalone Redis in ./mvnw verify
class RedisSentinelContractTest extends BackendContract {
    @RegisterExtension
    static final RedisSentinelExtension sentinel = new RedisSentinelExtension();

    @Override
    protected BackendHooks hooks() {
        return RedisHooks.sentinel(sentinel);
    }
}
