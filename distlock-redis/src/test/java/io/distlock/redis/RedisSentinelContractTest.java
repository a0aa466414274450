package io.distlock.redis;

import io.distlock.testkit.LeaseLockContract;
import io.distlock.testkit.LockClientFactory;
import io.distlock.testkit.RedisSentinelExtension;
import io.distlock.testkit.TestDeployment;
import java.util.OptionalLong;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The whole lease-lock contract through Sentinel (a master, one replica, three Sentinels). The
 * Sentinels wait a minute before declaring the master down, so the contract's own outages (stop,
 * pause, restart of the master) are outages, not failovers; failovers are {@link RedisFailoverTest}'s.
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
        return RawLockState.held(sentinel.group().servers().get(0).port(), name);
    }

    @Override
    protected OptionalLong lastTokenInBackend(String name) {
        return RawLockState.lastToken(sentinel.group().servers().get(0).port(), name);
    }
}
