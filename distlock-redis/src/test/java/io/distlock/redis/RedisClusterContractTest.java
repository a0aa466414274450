package io.distlock.redis;

import io.distlock.LockClient;
import io.distlock.testkit.BackendControl;
import io.distlock.testkit.LeaseLockContract;
import io.distlock.testkit.LockClientFactory;
import io.distlock.testkit.RedisClusterGroup;
import io.distlock.testkit.Resp;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The whole lease-lock contract on a Redis Cluster of three masters and three replicas. */
class RedisClusterContractTest extends LeaseLockContract {
    private static RedisClusterGroup cluster;

    /** Cluster clients with the contract's short timeouts. */
    public static final class Factory implements LockClientFactory {
        @Override
        public LockClient create(String target) {
            return RedisLockClient.builder().uri(target).cluster(true).operationTimeout(Duration.ofSeconds(1))
                    .connectTimeout(Duration.ofSeconds(1)).build();
        }
    }

    @BeforeAll
    static void startCluster() {
        cluster = RedisClusterGroup.launch();
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Override
    protected Class<? extends LockClientFactory> factoryClass() {
        return Factory.class;
    }

    @Override
    protected String target() {
        return cluster.seedUri();
    }

    @Override
    protected BackendControl backend() {
        return cluster.control();
    }

    @Override
    protected boolean lockedInBackend(String name) {
        String key = RedisKeys.defaults().lockKey(name);
        return RedisKeys.isHeldValue((String) Resp.call(cluster.masterOf(key).port(), "GET", key));
    }
}
