package io.distlock.redis;

import io.distlock.LockClient;
import io.distlock.testkit.LockClientFactory;
import java.time.Duration;

/** Clients for the contract tests: short timeouts so that outage tests finish quickly. */
public final class RedisClientFactory implements LockClientFactory {
    @Override
    public LockClient create(String target) {
        return RedisLockClient.builder()
                .uri(target)
                .operationTimeout(Duration.ofSeconds(1))
                .connectTimeout(Duration.ofSeconds(1))
                .build();
    }
}
