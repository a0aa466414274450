package io.distlock.spring.autoconfigure;

import io.distlock.LockClient;
import io.distlock.LockClients;
import io.distlock.LockListener;
import io.distlock.LockOptions;
import io.distlock.OpenOptions;
import io.distlock.spi.ClientBuilder;
import io.distlock.spi.LockBackendProvider;
import io.distlock.spring.actuate.DoctorTarget;
import io.distlock.spring.HeldLocks;
import io.distlock.redis.RedisLockClient;
import io.distlock.zookeeper.ZooKeeperLockClient;
import io.lettuce.core.resource.ClientResources;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ImportRuntimeHints;
import org.springframework.context.annotation.Condition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * One {@link LockClient} bean, {@code distlockClient}, closed when the context closes; backs off when the application
 * defines its own {@code LockClient}. Where it connects:
 * <ul>
 *   <li>{@code distlock.target} set: any backend of the registry ({@link LockClients}) opens it, with
 *       {@code distlock.namespace}, the lease and the operation timeout as {@link OpenOptions};</li>
 *   <li>otherwise the backend {@code distlock.backend} names (by default the first of redis, zookeeper and jdbc on the
 *       classpath) from its own properties and what the application already has: Redis from {@code spring.data.redis.*} on
 *       the application's Lettuce {@code ClientResources}, ZooKeeper from its connect string, SQL through the registry on
 *       the application's {@code DataSource} (a resource of the jdbc backend). Any other backend needs
 *       {@code distlock.target}.</li>
 * </ul>
 */
@AutoConfiguration(afterName = {
        "org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration", // Boot 3.5
        "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration", // Boot 4
        "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration", // Boot 3.5
        "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration" // Boot 4
})
@ConditionalOnProperty(prefix = "distlock", name = "enabled", havingValue = "true", matchIfMissing = true)
@EnableConfigurationProperties(DistlockProperties.class)
@ImportRuntimeHints(DistlockRuntimeHints.class)
public class DistlockAutoConfiguration {
    /** The backends with a Spring integration of their own here, in the order the default picks them. */
    static final List<String> INTEGRATED = List.of("redis", "zookeeper", "jdbc");

    /**
     * Fails at startup, naming the problem, when distlock.backend names a backend that is not on the classpath,
     * distlock.target is one no backend opens or of another backend than distlock.backend, distlock.target comes with a
     * backend's own location property, or the backend has no integration here and no distlock.target says where it is.
     */
    public DistlockAutoConfiguration(DistlockProperties properties) {
        String configured = properties.getBackend() == null ? null : properties.getBackend().trim().toLowerCase(Locale.ROOT);
        if (configured != null && LockClients.find(configured).isEmpty()) {
            String present = LockClients.providers().stream().map(LockBackendProvider::id).collect(Collectors.joining(", "));
            throw new IllegalStateException("distlock.backend=" + configured + " but no backend '" + configured + "' is on the classpath (there "
                    + (present.isEmpty() ? "is none" : "are " + present) + "): add its module (io.distlock:distlock-redis for redis and redlock, "
                    + "distlock-zookeeper, distlock-etcd, distlock-jdbc), or choose another backend");
        }
        String target = properties.getTarget();
        if (target != null) {
            String id;
            try {
                id = LockClients.providerFor(target).id();
            } catch (IllegalArgumentException e) {
                throw new IllegalStateException("distlock.target: " + e.getMessage(), e);
            }
            if (configured != null && !configured.equals(id)) {
                throw new IllegalStateException("distlock.backend=" + configured + " but distlock.target is a " + id + " target: set one of them, "
                        + "or make them agree");
            }
            List<String> alsoSet = new ArrayList<>();
            if (properties.getRedis().getUri() != null) {
                alsoSet.add("distlock.redis.uri");
            }
            if (properties.getZookeeper().getConnectString() != null) {
                alsoSet.add("distlock.zookeeper.connect-string");
            }
            if (properties.getJdbc().getUrl() != null) {
                alsoSet.add("distlock.jdbc.url");
            }
            if (!alsoSet.isEmpty()) {
                throw new IllegalStateException("distlock.target and " + String.join(", ", alsoSet) + " both say where the locks live: keep one");
            }
        } else if (configured != null && !INTEGRATED.contains(configured)) {
            throw new IllegalStateException("distlock.backend=" + configured + " needs distlock.target, the URI of its servers ("
                    + String.join(", ", LockClients.provider(configured).exampleTargets()) + ")");
        }
        if (target == null && properties.getNamespace() != null) {
            throw new IllegalStateException("distlock.namespace applies to distlock.target; without it, set the backend's own "
                    + "(distlock.redis.key-prefix, distlock.zookeeper.namespace, distlock.jdbc.table)");
        }
    }

    /** The locks the auto-configured client holds, for the distlocks endpoint and the health indicator. */
    @Bean
    @ConditionalOnMissingBean
    HeldLocks distlockHeldLocks(Environment environment) {
        return new HeldLocks(OnBackend.effective(environment));
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
            return io.distlock.micrometer.DistlockMetrics.of(meters, OnBackend.effective(environment));
        }
    }

    /**
     * Sets what every backend shares: the default lease, the operation timeout, and the application's
     * LockListener beans (ours among them: held locks, metrics).
     */
    static <B extends ClientBuilder<B>> B configureCommon(B builder, DistlockProperties properties, ObjectProvider<LockListener> listeners) {
        if (properties.getLeaseTime() != null) {
            builder.leaseTime(properties.getLeaseTime());
        }
        Integer localHandoffs = properties.getLocalHandoffs();
        if (localHandoffs != null) {
            builder.localHandoffs(localHandoffs); // 0 too: it turns the default off
        }
        if (properties.getOperationTimeout() != null) {
            builder.operationTimeout(properties.getOperationTimeout());
        }
        listeners.orderedStream().forEach(builder::listener);
        return builder;
    }

    /** Returns {@code url} with {@code parameter} ({@code name=value}) added to its query, before any {@code #fragment}. */
    static String withParameter(String url, String parameter) {
        int hash = url.indexOf('#');
        String head = hash < 0 ? url : url.substring(0, hash);
        return head + (head.contains("?") ? "&" : "?") + parameter + (hash < 0 ? "" : url.substring(hash));
    }

    /** The options the doctor examines the server with: the client's lock options and operation timeout, no listeners. */
    static OpenOptions doctorOptions(DistlockProperties properties) {
        OpenOptions options = OpenOptions.defaults();
        if (properties.getLeaseTime() != null) {
            options = options.lockOptions(LockOptions.builder().leaseTime(properties.getLeaseTime()).build());
        }
        Integer localHandoffs = properties.getLocalHandoffs();
        if (localHandoffs != null) {
            options = options.localHandoffs(localHandoffs);
        }
        if (properties.getOperationTimeout() != null) {
            options = options.operationTimeout(properties.getOperationTimeout());
        }
        return options;
    }

    /** What every backend shares, as options of the registry: the default lease, the operation timeout, the listeners. */
    static OpenOptions openOptions(DistlockProperties properties, ObjectProvider<LockListener> listeners) {
        OpenOptions options = doctorOptions(properties); // immutable: each setter returns a copy
        for (LockListener listener : listeners.orderedStream().toList()) {
            options = options.listener(listener);
        }
        return options;
    }

    /** Any backend of the registry, from distlock.target. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnProperty(prefix = "distlock", name = "target")
    static class TargetConfiguration {
        @Bean(destroyMethod = "close")
        @ConditionalOnMissingBean(LockClient.class)
        LockClient distlockClient(DistlockProperties properties, ObjectProvider<LockListener> listeners) {
            return LockClients.open(java.util.Objects.requireNonNull(properties.getTarget()),
                    openOptions(properties, listeners).namespace(properties.getNamespace()));
        }

        @Bean
        @ConditionalOnMissingBean(DoctorTarget.class)
        DoctorTarget distlockDoctorTarget(DistlockProperties properties) {
            return new DoctorTarget(java.util.Objects.requireNonNull(properties.getTarget()), doctorOptions(properties)
                    .namespace(properties.getNamespace()));
        }
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
            RedisServer server = RedisServer.of(redis, environment);
            RedisLockClient.Builder builder = RedisLockClient.builder()
                    .uri(server.uri())
                    .cluster(server.cluster())
                    .keyPrefix(redis.getKeyPrefix())
                    .minReplicas(redis.getMinReplicas());
            String clientName = redis.getClientName() != null ? redis.getClientName() : environment.getProperty("spring.application.name");
            if (clientName != null && !clientName.isBlank()) {
                builder.clientName(clientName.trim().replace(' ', '-'));
            }
            clientResources.ifUnique(builder::clientResources);
            return configureCommon(builder, properties, listeners).build();
        }

        @Bean
        @ConditionalOnMissingBean(DoctorTarget.class)
        DoctorTarget distlockDoctorTarget(DistlockProperties properties, Environment environment) {
            DistlockProperties.Redis redis = properties.getRedis();
            RedisServer server = RedisServer.of(redis, environment);
            String uri = server.cluster() ? server.uri().replaceFirst("^redis(s?)://", "redis$1-cluster://") : server.uri();
            if (redis.getMinReplicas() > 0) {
                uri = withParameter(uri, "minReplicas=" + redis.getMinReplicas());
            }
            return new DoctorTarget(uri, doctorOptions(properties));
        }

        /** The server the client talks to: distlock.redis.uri and .cluster, else the application's spring.data.redis.*. */
        private record RedisServer(String uri, boolean cluster) {
            static RedisServer of(DistlockProperties.Redis redis, Environment environment) {
                SpringRedisUri spring = SpringRedisUri.from(environment);
                return new RedisServer(redis.getUri() != null ? redis.getUri() : spring.uri(),
                        redis.getCluster() != null ? redis.getCluster() : redis.getUri() == null && spring.cluster());
            }
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
                        + "(host:port[,host:port...]); or give distlock.target=zk://host:port");
            }
            ZooKeeperLockClient.Builder builder = ZooKeeperLockClient.builder()
                    .connectString(zookeeper.getConnectString())
                    .namespace(zookeeper.getNamespace())
                    .sessionTimeout(zookeeper.getSessionTimeout());
            return configureCommon(builder, properties, listeners).build();
        }

        @Bean
        @ConditionalOnMissingBean(DoctorTarget.class)
        DoctorTarget distlockDoctorTarget(DistlockProperties properties) {
            DistlockProperties.Zookeeper zookeeper = properties.getZookeeper();
            String target = "zk://" + java.util.Objects.requireNonNull(zookeeper.getConnectString()).trim() + "?sessionTimeout="
                    + zookeeper.getSessionTimeout().toMillis() + "ms";
            return new DoctorTarget(target, doctorOptions(properties).namespace(zookeeper.getNamespace()));
        }
    }

    /**
     * A SQL database, from distlock.jdbc.url or else the application's one DataSource bean (the client borrows up to four
     * of its connections and runs every statement in autocommit, outside the application's transactions). Opened through
     * the registry: the DataSource and the credentials are resources of the jdbc backend, the table its namespace.
     */
    @Configuration(proxyBeanMethods = false)
    @Conditional(OnBackend.Jdbc.class)
    static class JdbcBackendConfiguration {
        @Bean(destroyMethod = "close")
        @ConditionalOnMissingBean(LockClient.class)
        LockClient distlockClient(DistlockProperties properties, ObjectProvider<javax.sql.DataSource> dataSources,
                ObjectProvider<LockListener> listeners) {
            DoctorTarget database = database(properties, dataSources, openOptions(properties, listeners));
            return LockClients.open(database.target(), database.options());
        }

        @Bean
        @ConditionalOnMissingBean(DoctorTarget.class)
        DoctorTarget distlockDoctorTarget(DistlockProperties properties, ObjectProvider<javax.sql.DataSource> dataSources) {
            return database(properties, dataSources, doctorOptions(properties));
        }

        /** The registry target and options of the database: distlock.jdbc.url with its credentials, or the one DataSource. */
        private static DoctorTarget database(DistlockProperties properties, ObjectProvider<javax.sql.DataSource> dataSources,
                OpenOptions common) {
            DistlockProperties.Jdbc jdbc = properties.getJdbc();
            OpenOptions options = common.namespace(jdbc.getTable());
            String database;
            if (jdbc.getUrl() != null) {
                database = jdbc.getUrl();
                if (jdbc.getUsername() != null) {
                    String password = jdbc.getPassword();
                    options = options.resource(new java.net.PasswordAuthentication(jdbc.getUsername(),
                            password == null ? new char[0] : password.toCharArray()));
                }
            } else {
                javax.sql.DataSource dataSource = dataSources.getIfUnique();
                if (dataSource == null) {
                    throw new IllegalStateException("distlock.backend is jdbc but distlock.jdbc.url is not set and the application has "
                            + (dataSources.stream().findAny().isPresent() ? "several DataSource beans and none is primary" : "no DataSource bean")
                            + ": set distlock.jdbc.url, or define one (primary) DataSource");
                }
                database = urlOf(dataSource);
                options = options.resource(dataSource);
            }
            return new DoctorTarget(jdbc.isCreateTable() ? database : withParameter(database, "createTable=false"), options);
        }

        /** The URL of the DataSource's database as its driver reports it: what picks the backend (and, in it, the SQL dialect). */
        private static String urlOf(javax.sql.DataSource dataSource) {
            try (java.sql.Connection connection = dataSource.getConnection()) {
                return connection.getMetaData().getURL();
            } catch (java.sql.SQLException e) {
                throw new io.distlock.BackendUnavailableException("cannot connect to the application's DataSource: " + e.getMessage(), e);
            }
        }

    }

    /**
     * Matches the backend in effect when distlock.target is not set (with it, {@link TargetConfiguration} serves every
     * backend): distlock.backend, or else the first of redis, zookeeper and jdbc on the classpath.
     */
    abstract static class OnBackend implements Condition {
        private final String backend;

        OnBackend(String backend) {
            this.backend = backend;
        }

        @Override
        public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
            return !Binder.get(context.getEnvironment()).bind("distlock.target", String.class).isBound()
                    && backend.equals(effective(context.getEnvironment()));
        }

        /** Returns the id of the backend in effect: of distlock.target, distlock.backend, or the first integrated one on the classpath. */
        static String effective(Environment environment) {
            Binder binder = Binder.get(environment);
            String target = binder.bind("distlock.target", String.class).orElse(null);
            if (target != null) {
                return LockClients.providerFor(target).id();
            }
            String configured = binder.bind("distlock.backend", String.class).orElse(null);
            if (configured != null) {
                return configured.trim().toLowerCase(Locale.ROOT);
            }
            return INTEGRATED.stream().filter(id -> LockClients.find(id).isPresent()).findFirst().orElse("redis");
        }

        static final class Redis extends OnBackend {
            Redis() {
                super("redis");
            }
        }

        static final class ZooKeeper extends OnBackend {
            ZooKeeper() {
                super("zookeeper");
            }
        }

        static final class Jdbc extends OnBackend {
            Jdbc() {
                super("jdbc");
            }
        }
    }
}
