package io.distlock.spring.autoconfigure;

import io.distlock.LockClient;
import io.distlock.LockListener;
import io.distlock.spi.ClientBuilder;
import io.distlock.spring.HeldLocks;
import io.distlock.redis.RedisLockClient;
import io.distlock.spring.autoconfigure.DistlockProperties.Backend;
import io.distlock.zookeeper.ZooKeeperLockClient;
import io.lettuce.core.resource.ClientResources;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Condition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.util.ClassUtils;

/**
 * One {@link LockClient} bean, {@code distlockClient}, for the backend {@code distlock.backend} names (by
 * default the one distlock backend module on the classpath; with several, the first of Redis, ZooKeeper and
 * JDBC), closed when the context closes. Backs off when the application defines its own {@code LockClient}.
 *
 * <p>A new backend adds a nested configuration guarded by {@link OnBackend} and a {@link Backend} constant.
 */
@AutoConfiguration(afterName = {
        "org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration", // Boot 3.5
        "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration", // Boot 4
        "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration", // Boot 3.5
        "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration" // Boot 4
})
@ConditionalOnProperty(prefix = "distlock", name = "enabled", havingValue = "true", matchIfMissing = true)
@EnableConfigurationProperties(DistlockProperties.class)
public class DistlockAutoConfiguration {
    /** Backend module classes, by backend. */
    static final Map<Backend, String> MODULES = Map.of(
            Backend.REDIS, "io.distlock.redis.RedisLockClient",
            Backend.ZOOKEEPER, "io.distlock.zookeeper.ZooKeeperLockClient",
            Backend.JDBC, "io.distlock.jdbc.JdbcLockClient");
    private static final Map<Backend, String> ARTIFACTS = Map.of(
            Backend.REDIS, "io.distlock:distlock-redis",
            Backend.ZOOKEEPER, "io.distlock:distlock-zookeeper",
            Backend.JDBC, "io.distlock:distlock-jdbc");

    /** Fails at startup, naming the missing module, when distlock.backend names a backend that is not on the classpath. */
    public DistlockAutoConfiguration(DistlockProperties properties) {
        Backend backend = properties.getBackend();
        if (backend != null && !ClassUtils.isPresent(MODULES.get(backend), DistlockAutoConfiguration.class.getClassLoader())) {
            throw new IllegalStateException("distlock.backend=" + backendName(backend) + " but "
                    + ARTIFACTS.get(backend) + " is not on the classpath: add it as a dependency, or choose another backend");
        }
    }

    /** The locks the auto-configured client holds, for the distlocks endpoint and the health indicator. */
    @Bean
    @ConditionalOnMissingBean
    HeldLocks distlockHeldLocks(Environment environment) {
        return new HeldLocks(backendName(OnBackend.effective(environment, DistlockAutoConfiguration.class.getClassLoader())));
    }

    /** Micrometer meters for the auto-configured client, when Micrometer and distlock-micrometer are on the classpath. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = {"io.micrometer.core.instrument.MeterRegistry", "io.distlock.micrometer.DistlockMetrics"})
    static class MetricsConfiguration {
        @Bean
        LockListener distlockMetrics(ObjectProvider<io.micrometer.core.instrument.MeterRegistry> registry, Environment environment) {
            io.micrometer.core.instrument.MeterRegistry meters = registry.getIfUnique();
            if (meters == null) {
                return new LockListener() {}; // no registry in this application: nothing to meter into
            }
            return io.distlock.micrometer.DistlockMetrics.of(meters,
                    backendName(OnBackend.effective(environment, DistlockAutoConfiguration.class.getClassLoader())));
        }
    }

    static String backendName(Backend backend) {
        return backend.name().toLowerCase(java.util.Locale.ROOT);
    }

    /**
     * Sets what every backend shares: the default lease, the operation timeout, and the application's
     * LockListener beans (ours among them: held locks, metrics).
     */
    static <B extends ClientBuilder<B>> B configureCommon(B builder, DistlockProperties properties, ObjectProvider<LockListener> listeners) {
        if (properties.getLeaseTime() != null) {
            builder.leaseTime(properties.getLeaseTime());
        }
        if (properties.getOperationTimeout() != null) {
            builder.operationTimeout(properties.getOperationTimeout());
        }
        listeners.orderedStream().forEach(builder::listener);
        return builder;
    }

    /** Redis, from distlock.redis.uri or else the application's spring.data.redis.*, on its Lettuce ClientResources if it has one. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(RedisLockClient.class)
    @Conditional(OnBackend.Redis.class)
    static class RedisBackendConfiguration {
        @Bean(destroyMethod = "close")
        @ConditionalOnMissingBean(LockClient.class)
        RedisLockClient distlockClient(DistlockProperties properties, Environment environment, ObjectProvider<ClientResources> clientResources,
                ObjectProvider<LockListener> listeners) {
            DistlockProperties.Redis redis = properties.getRedis();
            SpringRedisUri spring = SpringRedisUri.from(environment);
            RedisLockClient.Builder builder = RedisLockClient.builder()
                    .uri(redis.getUri() != null ? redis.getUri() : spring.uri())
                    .cluster(redis.getCluster() != null ? redis.getCluster() : redis.getUri() == null && spring.cluster())
                    .keyPrefix(redis.getKeyPrefix())
                    .minReplicas(redis.getMinReplicas());
            String clientName = redis.getClientName() != null ? redis.getClientName() : environment.getProperty("spring.application.name");
            if (clientName != null && !clientName.isBlank()) {
                builder.clientName(clientName.trim().replace(' ', '-'));
            }
            clientResources.ifUnique(builder::clientResources);
            return configureCommon(builder, properties, listeners).build();
        }
    }

    /** ZooKeeper, from distlock.zookeeper.*. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(ZooKeeperLockClient.class)
    @Conditional(OnBackend.ZooKeeper.class)
    static class ZooKeeperBackendConfiguration {
        @Bean(destroyMethod = "close")
        @ConditionalOnMissingBean(LockClient.class)
        ZooKeeperLockClient distlockClient(DistlockProperties properties, ObjectProvider<LockListener> listeners) {
            DistlockProperties.Zookeeper zookeeper = properties.getZookeeper();
            if (zookeeper.getConnectString() == null || zookeeper.getConnectString().isBlank()) {
                throw new IllegalStateException("distlock.backend is zookeeper but distlock.zookeeper.connect-string is not set "
                        + "(host:port[,host:port...])");
            }
            ZooKeeperLockClient.Builder builder = ZooKeeperLockClient.builder()
                    .connectString(zookeeper.getConnectString())
                    .namespace(zookeeper.getNamespace())
                    .sessionTimeout(zookeeper.getSessionTimeout());
            return configureCommon(builder, properties, listeners).build();
        }
    }

    /**
     * A SQL database, from distlock.jdbc.url or else the application's one DataSource bean (the client borrows up to four
     * of its connections and runs every statement in autocommit, outside the application's transactions).
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "io.distlock.jdbc.JdbcLockClient")
    @Conditional(OnBackend.Jdbc.class)
    static class JdbcBackendConfiguration {
        @Bean(destroyMethod = "close")
        @ConditionalOnMissingBean(LockClient.class)
        io.distlock.jdbc.JdbcLockClient distlockClient(DistlockProperties properties, ObjectProvider<javax.sql.DataSource> dataSources,
                ObjectProvider<LockListener> listeners) {
            DistlockProperties.Jdbc jdbc = properties.getJdbc();
            io.distlock.jdbc.JdbcLockClient.Builder builder = io.distlock.jdbc.JdbcLockClient.builder()
                    .table(jdbc.getTable())
                    .createTable(jdbc.isCreateTable());
            if (jdbc.getUrl() != null) {
                builder.jdbcUrl(jdbc.getUrl());
                if (jdbc.getUsername() != null) {
                    builder.credentials(jdbc.getUsername(), jdbc.getPassword());
                }
            } else {
                javax.sql.DataSource dataSource = dataSources.getIfUnique();
                if (dataSource == null) {
                    throw new IllegalStateException("distlock.backend is jdbc but distlock.jdbc.url is not set and the application has "
                            + (dataSources.stream().findAny().isPresent() ? "several DataSource beans and none is primary" : "no DataSource bean")
                            + ": set distlock.jdbc.url, or define one (primary) DataSource");
                }
                builder.dataSource(dataSource);
            }
            return configureCommon(builder, properties, listeners).build();
        }
    }

    /** Matches the backend in effect: distlock.backend, or else the first backend module on the classpath (Redis, ZooKeeper, JDBC). */
    abstract static class OnBackend implements Condition {
        private final Backend backend;

        OnBackend(Backend backend) {
            this.backend = backend;
        }

        @Override
        public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
            return backend == effective(context.getEnvironment(), context.getClassLoader());
        }

        static Backend effective(Environment environment, @Nullable ClassLoader loader) {
            Backend configured = Binder.get(environment).bind("distlock.backend", Backend.class).orElse(null);
            if (configured != null) {
                return configured;
            }
            for (Backend candidate : Backend.values()) {
                if (ClassUtils.isPresent(MODULES.get(candidate), loader)) {
                    return candidate;
                }
            }
            return Backend.REDIS;
        }

        static final class Redis extends OnBackend {
            Redis() {
                super(Backend.REDIS);
            }
        }

        static final class ZooKeeper extends OnBackend {
            ZooKeeper() {
                super(Backend.ZOOKEEPER);
            }
        }

        static final class Jdbc extends OnBackend {
            Jdbc() {
                super(Backend.JDBC);
            }
        }
    }
}
