package io.distlock.spring.autoconfigure;

import io.distlock.LockClient;
import io.distlock.spring.AcquireObservation;
import io.distlock.spring.HeldLocks;
import io.distlock.spring.WithLock;
import io.distlock.spring.WithLockAdvisor;
import io.distlock.spring.LockSettings;
import io.distlock.spring.LockTemplate;
import io.distlock.spring.WithLockInterceptor;
import io.distlock.spring.WithLockMethodsCheck;
import org.springframework.aop.config.AopConfigUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.context.annotation.Role;
import org.springframework.core.type.AnnotationMetadata;

/**
 * {@link WithLock} on every bean, and a {@link LockTemplate}, when there is a {@link LockClient} (ours or the application's). The
 * advice order is {@code distlock.advice-order} (default {@link WithLockAdvisor#DEFAULT_ORDER}: outside
 * transactions and caching). Works with {@code distlock.enabled=false} and a client of the application's.
 */
@AutoConfiguration(after = DistlockAutoConfiguration.class)
@ConditionalOnBean(LockClient.class)
@EnableConfigurationProperties(DistlockProperties.class)
@Import(WithLockAutoConfiguration.AutoProxying.class)
public class WithLockAutoConfiguration {
    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    @ConditionalOnMissingBean
    static WithLockInterceptor distlockWithLockInterceptor(ObjectProvider<LockClient> client, DistlockProperties properties,
            ObjectProvider<HeldLocks> held, ObjectProvider<AcquireObservation> observation, BeanFactory beanFactory) {
        return new WithLockInterceptor(client::getObject, () -> {
            HeldLocks ours = held.getIfUnique();
            return ours != null ? ours.backend() : "unknown";
        }, () -> observation.getIfUnique(() -> AcquireObservation.NONE), properties.getWaitTime(), beanFactory);
    }

    /** {@link LockTemplate}: the same client, wait default and observations as {@code @WithLock}. */
    @Bean
    @ConditionalOnMissingBean
    LockTemplate distlockLockTemplate(ObjectProvider<LockClient> client, DistlockProperties properties, ObjectProvider<HeldLocks> held,
            ObjectProvider<AcquireObservation> observation) {
        return new LockTemplate(client::getObject, () -> {
            HeldLocks ours = held.getIfUnique();
            return ours != null ? ours.backend() : "unknown";
        }, () -> observation.getIfUnique(() -> AcquireObservation.NONE), LockSettings.defaults().waitTime(properties.getWaitTime()));
    }

    /** distlock.acquire observations, when Micrometer's ObservationRegistry is there. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "io.micrometer.observation.ObservationRegistry")
    static class ObservationConfiguration {
        @Bean
        @ConditionalOnMissingBean
        AcquireObservation distlockAcquireObservation(ObjectProvider<io.micrometer.observation.ObservationRegistry> registry) {
            io.micrometer.observation.ObservationRegistry observations = registry.getIfUnique();
            return observations == null ? AcquireObservation.NONE : new MicrometerAcquireObservation(observations);
        }
    }

    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    @ConditionalOnMissingBean
    static WithLockAdvisor distlockWithLockAdvisor(WithLockInterceptor distlockWithLockInterceptor, DistlockProperties properties) {
        return new WithLockAdvisor(distlockWithLockInterceptor, properties.getAdviceOrder());
    }

    /** Makes sure an auto-proxy creator exists (Boot's AOP auto-configuration may be off); one that does is kept. */
    static class AutoProxying implements ImportBeanDefinitionRegistrar {
        @Override
        public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
            AopConfigUtils.registerAutoProxyCreatorIfNecessary(registry);
            // the check of each bean's @WithLock methods (WithLockMethodsCheck): a post-processor defined here, by itself,
            // so that making it makes nothing else; it finds the interceptor when the first such bean is made
            // A plain class definition (it finds the interceptor as BeanFactoryAware), not an instance supplier: Spring's
            // AOT cannot generate code for a supplier (the example application's test in AOT mode failed on one)
            if (!registry.containsBeanDefinition(METHODS_CHECK)) {
                org.springframework.beans.factory.support.RootBeanDefinition check =
                        new org.springframework.beans.factory.support.RootBeanDefinition(WithLockMethodsCheck.class);
                check.setRole(BeanDefinition.ROLE_INFRASTRUCTURE);
                registry.registerBeanDefinition(METHODS_CHECK, check);
            }
        }

        private static final String METHODS_CHECK = "distlockWithLockMethodsCheck";
    }
}
