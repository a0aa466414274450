package io.distlock.zookeeper;

import io.distlock.LockClient;
import io.distlock.LockOptions;
import io.distlock.testkit.ClientSettings;
import io.distlock.testkit.LockClientFactory;
import java.time.Duration;

/** Clients for the contract tests: short session and timeouts so outage tests finish quickly. */
public final class ZooKeeperClientFactory implements LockClientFactory {
    /** The clients' session timeout, and their lease. */
    static final Duration SESSION_TIMEOUT = Duration.ofSeconds(4);

    @Override
    public LockClient create(String target, ClientSettings settings) {
        return ZooKeeperLockClient.builder()
                .connectString(target)
                .sessionTimeout(SESSION_TIMEOUT)
                .connectionTimeout(Duration.ofSeconds(1))
                .operationTimeout(settings.operationTimeout())
                .fallbackPoll(settings.fallbackPoll())
                .lockOptions(LockOptions.builder().leaseTime(SESSION_TIMEOUT).build())
                .build();
    }
}
