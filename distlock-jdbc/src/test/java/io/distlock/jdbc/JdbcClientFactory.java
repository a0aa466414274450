package io.distlock.jdbc;

import io.distlock.LockClient;
import io.distlock.testkit.ClientSettings;
import io.distlock.testkit.LockClientFactory;

/** Clients for the contract tests: the target is a JDBC URL. */
public final class JdbcClientFactory implements LockClientFactory {
    @Override
    public LockClient create(String target, ClientSettings settings) {
        return JdbcLockClient.builder()
                .jdbcUrl(target)
                .operationTimeout(settings.operationTimeout())
                .fallbackPoll(settings.fallbackPoll())
                .build();
    }
}
