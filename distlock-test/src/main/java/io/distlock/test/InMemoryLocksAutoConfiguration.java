package io.distlock.test;

import io.distlock.LockClient;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * Imported by {@link AutoConfigureInMemoryLocks}: an {@link InMemoryLockServer} and the application's {@link LockClient}
 * on it, before the distlock starter's auto-configuration (which backs off when a LockClient bean exists).
 */
@AutoConfiguration(beforeName = "io.distlock.spring.autoconfigure.DistlockAutoConfiguration")
public class InMemoryLocksAutoConfiguration {
    @Bean(destroyMethod = "close")
    InMemoryLockServer inMemoryLockServer() {
        return new InMemoryLockServer();
    }

    @Bean(destroyMethod = "close")
    LockClient inMemoryLockClient(InMemoryLockServer server) {
        return server.newClient();
    }
}
