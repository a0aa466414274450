package io.distlock.redis;

import io.distlock.LockClient;
import io.distlock.servers.Resp;
import io.distlock.testkit.ClientSettings;
import io.distlock.testkit.LeaseLockContract;
import io.distlock.testkit.LockClientFactory;
import io.distlock.testkit.RedisClusterExtension;
import io.distlock.testkit.TestDeployment;
import java.time.Duration;
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

    @Override
    protected boolean lockedInBackend(String name) {
        String key = RedisLockClient.DEFAULT_KEY_PREFIX + "{" + name + "}";
        return RedisLockBackend.isHeldValue((String) Resp.call(cluster.cluster().masterOf(key).port(), "GET", key));
    }
}
