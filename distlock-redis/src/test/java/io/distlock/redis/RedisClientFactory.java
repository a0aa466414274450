package io.distlock.redis;

import io.distlock.LockClient;
import io.distlock.testkit.ClientSettings;
import io.distlock.testkit.LockClientFactory;
import java.time.Duration;

/** Clients for the contract tests: short timeouts so that outage tests finish quickly. */
public final class RedisClientFactory implements LockClientFactory {
    @Override
    public LockClient create(String target, ClientSettings settings) {
        return RedisLockClient.builder()
                .uri(target)
                .operationTimeout(settings.operationTimeout())
                .fallbackPoll(settings.fallbackPoll())
                .connectTimeout(Duration.ofSeconds(1))
                .build();
    }
}
