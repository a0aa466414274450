package io.distlock.redis;

import io.distlock.LockClient;
import io.distlock.redis.testing.RedisClusterExtension;
import io.distlock.testkit.BackendContract;
import io.distlock.testkit.BackendHooks;
import io.distlock.testkit.ClientSettings;
import io.distlock.testkit.LockClientFactory;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Every tier of the contract, every kind, on a Redis Cluster of three masters and three replicas: every key of one lock in one slot. */
@Tag(BackendContract.ANOTHER_DEPLOYMENT) // fair and write tiers in -Pslow; on a standalone Redis in ./mvnw verify
class RedisClusterContractTest extends BackendContract {
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
    protected BackendHooks hooks() {
        return RedisHooks.cluster(cluster);
    }
}
