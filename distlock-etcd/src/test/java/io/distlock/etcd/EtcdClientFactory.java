package io.distlock.etcd;

import io.distlock.LockClient;
import io.distlock.LockOptions;
import io.distlock.testkit.ClientSettings;
import io.distlock.testkit.LockClientFactory;
import java.time.Duration;

/** Clients for the contract tests: a short session and timeouts so outage tests finish quickly. */
public final class EtcdClientFactory implements LockClientFactory {
    /** The clients' session TTL, and their lease. */
    static final Duration SESSION_TTL = Duration.ofSeconds(4);

    @Override
    public LockClient create(String target, ClientSettings settings) {
        return EtcdLockClient.builder()
                .endpoints(target)
                .sessionTtl(SESSION_TTL)
                .operationTimeout(settings.operationTimeout())
                .fallbackPoll(settings.fallbackPoll())
                .lockOptions(LockOptions.builder().leaseTime(SESSION_TTL).build())
                .build();
    }
}
