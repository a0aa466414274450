package io.distlock.redis;

import io.distlock.LockClient;
import io.distlock.testkit.ClientSettings;
import io.distlock.testkit.LeaseLockContract;
import io.distlock.testkit.LockClientFactory;
import io.distlock.testkit.RedisClusterExtension;
import io.distlock.testkit.TestDeployment;
import java.time.Duration;
import java.util.OptionalLong;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The whole lease-lock contract on a Redis Cluster of three masters and three replicas. */
class RedisClusterContractTest extends LeaseLockContract {
    @RegisterExtension
    static final RedisClusterExtension cluster = new RedisClusterExtension();

    /** Cluster clients with the contract's short timeouts. */
    public static final class Factory implements LockClientFactory {
        @Override
        public LockClient create(String target, ClientSettings settings) {
            return RedisLockClient.builder().uri(target).cluster(true).operationTimeout(settings.operationTimeout())
                    .fallbackPoll(settings.fallbackPoll()).connectTimeout(Duration.ofSeconds(1)).build();
        }
    }

    @Override
    protected Class<? extends LockClientFactory> factoryClass() {
        return Factory.class;
    }

    @Override
    protected TestDeployment deployment() {
        return cluster;
    }

    private int masterOf(String name) {
        return cluster.cluster().masterOf(RedisKeys.defaults().lockKey(name)).port();
    }

    @Override
    protected boolean lockedInBackend(String name) {
        return RawLockState.held(masterOf(name), name);
    }

    @Override
    protected OptionalLong lastTokenInBackend(String name) {
        return RawLockState.lastToken(masterOf(name), name);
    }
}
