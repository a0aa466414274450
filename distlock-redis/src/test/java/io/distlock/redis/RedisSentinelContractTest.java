package io.distlock.redis;

import io.distlock.testkit.BackendControl;
import io.distlock.testkit.LeaseLockContract;
import io.distlock.testkit.LockClientFactory;
import io.distlock.testkit.RedisReplicaGroup;
import io.distlock.testkit.Resp;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The whole lease-lock contract through Sentinel (a master, one replica, three Sentinels). The
 * Sentinels wait a minute before declaring the master down, so the contract's own outages (stop,
 * pause, restart of the master) are outages, not failovers; failovers are {@link RedisFailoverTest}'s.
 */
class RedisSentinelContractTest extends LeaseLockContract {
    private static RedisReplicaGroup group;

    @BeforeAll
    static void startGroup() {
        group = RedisReplicaGroup.launch(1).withSentinels(3, Duration.ofSeconds(60));
    }

    @AfterAll
    static void stopGroup() {
        if (group != null) {
            group.close();
        }
    }

    @Override
    protected Class<? extends LockClientFactory> factoryClass() {
        return RedisClientFactory.class;
    }

    @Override
    protected String target() {
        return group.sentinelUri();
    }

    @Override
    protected BackendControl backend() {
        return group.servers().get(0);
    }

    @Override
    protected boolean lockedInBackend(String name) {
        Object value = Resp.call(group.servers().get(0).port(), "GET", RedisKeys.defaults().lockKey(name));
        return RedisKeys.isHeldValue((String) value);
    }
}
