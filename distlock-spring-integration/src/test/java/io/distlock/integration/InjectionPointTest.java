package io.distlock.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.distlock.LockClient;
import io.distlock.redis.RedisLockClient;
import io.distlock.redis.testing.RedisServerExtension;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.integration.support.locks.LockRegistry;

/** The registry bean fits the injection points applications declare for Spring Integration's registries. */
class InjectionPointTest {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Configuration
    static class Registry {
        @Bean(destroyMethod = "close")
        LockClient lockClient() {
            return RedisLockClient.create(redis.server().uri());
        }

        @Bean
        DistlockLockRegistry lockRegistry(LockClient lockClient) {
            return new DistlockLockRegistry(lockClient);
        }
    }

    static class RawUser {
        @SuppressWarnings("rawtypes")
        @Autowired
        LockRegistry registry;
    }

    static class WildcardUser {
        @Autowired
        LockRegistry<?> registry;
    }

    static class LockUser {
        @Autowired
        LockRegistry<Lock> registry;
    }

    /** Spring Integration 7's own registries' type. */
    static class DistributedLockUser {
        @Autowired
        LockRegistry<DistributedLock> registry;
    }

    private static <T> T inject(Class<T> user) {
        return inject(user, bean -> { });
    }

    /** Starts a context with the registry and {@code user}, hands the user to {@code check}, and closes the context. */
    private static <T> T inject(Class<T> user, java.util.function.Consumer<T> check) {
        try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext()) {
            context.register(Registry.class, user);
            context.refresh();
            T bean = context.getBean(user);
            check.accept(bean);
            return bean;
        }
    }

    @Test
    void aPlainLockRegistryInjectionPointGetsTheRegistry() {
        assertThat(inject(RawUser.class).registry).isInstanceOf(DistlockLockRegistry.class); // 6.5's LockRegistry is not generic
    }

    @Test
    void onSpringIntegration7WildcardAndLockTypedInjectionPointsGetTheRegistry() {
        assumeTrue(Si7.present(), "Spring Integration 6.5's LockRegistry has no type parameter");
        assertThat(inject(WildcardUser.class).registry).isInstanceOf(DistlockLockRegistry.class);
        assertThat(inject(LockUser.class).registry).isInstanceOf(DistlockLockRegistry.class);
    }

    @Test
    void onSpringIntegration7ADistributedLockTypedInjectionPointGetsItAndItsLocksAreDistributedLocks() {
        assumeTrue(Si7.present(), "Spring Integration 6.5 has no DistributedLock");
        inject(DistributedLockUser.class, user -> {
            assertThat(user.registry).isInstanceOf(DistlockLockRegistry.class);
            DistributedLock lock = user.registry.obtain("injected"); // a cast the compiler put in: it must hold
            assertThat(lock).isInstanceOf(DistlockRegistryLock.class);
        });
    }
}
