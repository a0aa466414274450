package io.distlock.redis;

import io.distlock.servers.Resp;
import io.distlock.testkit.LeaseLockContract;
import io.distlock.testkit.LockClientFactory;
import io.distlock.testkit.RedisSentinelExtension;
import io.distlock.testkit.TestDeployment;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The whole lease-lock contract through Sentinel (a master, one replica, three Sentinels). The
 * contract's own outages (stop, pause, restart of the master) are outages, not failovers; failovers
 * are {@link RedisFailoverTest}'s.
 */
class RedisSentinelContractTest extends LeaseLockContract {
    @RegisterExtension
    static final RedisSentinelExtension sentinel = new RedisSentinelExtension();

    @Override
    protected Class<? extends LockClientFactory> factoryClass() {
        return RedisClientFactory.class;
    }

    @Override
    protected TestDeployment deployment() {
        return sentinel;
    }

    @Override
    protected boolean lockedInBackend(String name) {
        Object value = Resp.call(sentinel.group().servers().get(0).port(), "GET", RedisLockClient.DEFAULT_KEY_PREFIX + "{" + name + "}");
        return RedisLockBackend.isHeldValue((String) value);
    }
}
