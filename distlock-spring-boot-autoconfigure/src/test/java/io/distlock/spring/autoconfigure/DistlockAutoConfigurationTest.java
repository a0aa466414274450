package io.distlock.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.BackendUnavailableException;
import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.jdbc.JdbcLockClient;
import io.distlock.redis.RedisLockClient;
import io.distlock.redis.testing.RedisServerExtension;
import io.distlock.servers.FreePorts;
import io.distlock.zookeeper.ZooKeeperLockClient;
import io.distlock.zookeeper.testing.ZooKeeperServerExtension;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** Which LockClient the starter builds, from which properties, and when it backs off; against real servers. */
class DistlockAutoConfigurationTest {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();
    @RegisterExtension
    static final ZooKeeperServerExtension zookeeper = new ZooKeeperServerExtension();

    private static RedisClient raw;
    private static StatefulRedisConnection<String, String> rawConnection;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DistlockAutoConfiguration.class, WithLockAutoConfiguration.class))
            .withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.server().port());

    @BeforeAll
    static void connectRaw() {
        raw = RedisClient.create(redis.server().uri());
        rawConnection = raw.connect();
    }

    @AfterAll
    static void disconnectRaw() {
        rawConnection.close();
        raw.shutdown();
        if (observer != null) {
            observer.close();
        }
    }

    private static RedisLockClient observer;

    /** Another client of the same Redis, as another instance of the application would be. */
    private static synchronized RedisLockClient observer() {
        if (observer == null) {
            observer = RedisLockClient.create(redis.server().uri());
        }
        return observer;
    }

    @Test
    void redisFromTheApplicationsSpringDataRedisPropertiesWithOurPrefixAndLease() {
        runner.withPropertyValues("distlock.redis.key-prefix=shop:", "distlock.lease-time=7s").run(context -> {
            assertThat(context).hasSingleBean(LockClient.class).hasSingleBean(RedisLockClient.class);
            LockClient locks = context.getBean(LockClient.class);
            try (Lease lease = locks.getLock("auto").acquire(Duration.ofSeconds(5))) {
                assertThat(rawConnection.sync().get("shop:{auto}")).as("no local handoffs by default").startsWith(lease.fencingToken() + ":");
                assertThat(rawConnection.sync().pttl("shop:{auto}")).isBetween(1L, 7000L);
            }
        });
    }

    @Test
    void closingTheContextClosesTheClientAndReleasesWhatItHeld() {
        LockClient[] client = new LockClient[1];
        runner.run(context -> {
            client[0] = context.getBean(LockClient.class);
            client[0].getLock("held-at-close").acquire(Duration.ofSeconds(5));
            assertThat(observer().getLock("held-at-close").isLocked()).isTrue();
        });
        assertThatThrownBy(() -> client[0].getLock("after-close").tryAcquire(Duration.ZERO)).as("the client was closed")
                .isInstanceOf(IllegalStateException.class);
        assertThat(observer().getLock("held-at-close").isLocked()).as("released when the context closed").isFalse();
    }

    @Test
    void distlockRedisUriWinsOverSpringDataRedis() {
        runner.withPropertyValues("spring.data.redis.port=" + FreePorts.next(), "distlock.redis.uri=" + redis.server().uri())
                .run(context -> assertThat(context.getBean(LockClient.class).getLock("uri").tryAcquire(Duration.ZERO)).isPresent());
    }

    @Test
    void backsOffWhenTheApplicationDefinesALockClient() {
        try (RedisLockClient own = RedisLockClient.builder().uri(redis.server().uri()).keyPrefix("own:").build()) {
            runner.withBean("myLocks", LockClient.class, () -> own).run(context -> {
                assertThat(context).hasSingleBean(LockClient.class);
                assertThat(context.getBean(LockClient.class)).isSameAs(own);
                assertThat(context).hasBean("distlockWithLockAdvisor");
            });
        }
    }

    @Test
    void disabledMeansNoClient() {
        runner.withPropertyValues("distlock.enabled=false").run(context -> assertThat(context).doesNotHaveBean(LockClient.class)
                .doesNotHaveBean("distlockWithLockAdvisor"));
    }

    @Test
    void anUnreachableRedisFailsTheStartupNamingTheServer() {
        int nobody = FreePorts.next();
        runner.withPropertyValues("spring.data.redis.port=" + nobody).run(context -> assertThat(context).hasFailed()
                .getFailure().hasStackTraceContaining(BackendUnavailableException.class.getName() + ": cannot connect to Redis at redis://127.0.0.1:"
                        + nobody));
    }

    @Test
    void zookeeperWhenChosen() {
        runner.withPropertyValues("distlock.backend=zookeeper", "distlock.zookeeper.connect-string=" + zookeeper.directTarget(),
                "distlock.zookeeper.namespace=shop").run(context -> {
                    assertThat(context).hasSingleBean(ZooKeeperLockClient.class);
                    assertThat(context.getBean(LockClient.class).getLock("zk").tryAcquire(Duration.ofSeconds(5))).isPresent();
                });
    }

    @Test
    void zookeeperWithoutAConnectStringFailsSayingWhichPropertyIsMissing() {
        runner.withPropertyValues("distlock.backend=zookeeper").run(context -> assertThat(context).hasFailed()
                .getFailure().rootCause().hasMessageContaining("distlock.zookeeper.connect-string"));
    }

    @Test
    void distlockTargetOpensAnyBackendOfTheRegistryWithTheNamespaceLeaseAndListeners() {
        String target = "zk://" + zookeeper.directTarget() + "?sessionTimeout=3s";
        runner.withPropertyValues("distlock.target=" + target, "distlock.namespace=shop-locks").run(context -> {
            assertThat(context).hasSingleBean(LockClient.class).doesNotHaveBean(RedisLockClient.class);
            assertThat(context.getBean(io.distlock.spring.HeldLocks.class).backend()).isEqualTo("zookeeper");
            try (Lease lease = context.getBean(LockClient.class).getLock("by-target").acquire(Duration.ofSeconds(5))) {
                assertThat(context.getBean(io.distlock.spring.HeldLocks.class).list()).extracting(held -> held.name()).containsExactly("by-target");
                try (LockClient sameNamespace = io.distlock.LockClients.open(target, "shop-locks");
                        LockClient otherNamespace = io.distlock.LockClients.open(target, "elsewhere")) {
                    assertThat(sameNamespace.getLock("by-target").tryAcquire(Duration.ZERO)).as("held in distlock.namespace").isEmpty();
                    assertThat(otherNamespace.getLock("by-target").tryAcquire(Duration.ZERO)).as("another namespace's lock").isPresent();
                }
            }
        });
        runner.withPropertyValues("distlock.target=" + redis.server().uri(), "distlock.namespace=tgt:", "distlock.lease-time=7s",
                "distlock.local-handoffs=8").run(context -> {
            try (Lease lease = context.getBean(LockClient.class).getLock("auto").acquire(Duration.ofSeconds(5))) {
                assertThat(rawConnection.sync().pttl("tgt:{auto}")).isBetween(1L, 7000L);
            }
            assertThat(context.getBean(LockClient.class).getLock("auto").options().localHandoffs()).isEqualTo(8);
        });
        runner.withPropertyValues("distlock.target=" + redis.server().uri(), "distlock.namespace=dflt:").run(context ->
                assertThat(context.getBean(LockClient.class).getLock("auto").options().localHandoffs()).as("unset: the library's default")
                        .isEqualTo(io.distlock.LockOptions.DEFAULT_LOCAL_HANDOFFS));
        runner.withPropertyValues("distlock.target=" + redis.server().uri(), "distlock.namespace=off:", "distlock.local-handoffs=0").run(context ->
                assertThat(context.getBean(LockClient.class).getLock("auto").options().localHandoffs()).as("0 turns the default off")
                        .isZero());
    }

    @Test
    void aTargetNoBackendOpensOrThatContradictsTheOtherPropertiesFailsTheStartupNamingIt() {
        runner.withPropertyValues("distlock.target=consul://127.0.0.1:8500").run(context -> assertThat(context).hasFailed()
                .getFailure().rootCause().hasMessageContaining("consul://127.0.0.1:8500").hasMessageContaining("zk:"));
        runner.withPropertyValues("distlock.target=" + redis.server().uri(), "distlock.backend=zookeeper").run(context -> assertThat(context)
                .hasFailed().getFailure().rootCause().hasMessageContaining("distlock.backend=zookeeper but distlock.target is a redis target"));
        runner.withPropertyValues("distlock.target=" + redis.server().uri(), "distlock.redis.uri=" + redis.server().uri()).run(context -> assertThat(context)
                .hasFailed().getFailure().rootCause().hasMessageContaining("distlock.target and distlock.redis.uri both say where the locks live"));
        runner.withPropertyValues("distlock.backend=redlock").run(context -> assertThat(context).hasFailed()
                .getFailure().rootCause().hasMessageContaining("distlock.backend=redlock needs distlock.target").hasMessageContaining("redlock://"));
        runner.withPropertyValues("distlock.backend=consul").run(context -> assertThat(context).hasFailed()
                .getFailure().rootCause().hasMessageContaining("no backend 'consul' is on the classpath").hasMessageContaining("zookeeper"));
        runner.withPropertyValues("distlock.namespace=x").run(context -> assertThat(context).hasFailed()
                .getFailure().rootCause().hasMessageContaining("distlock.namespace applies to distlock.target"));
    }

    /** An H2 database in this JVM, alive until the JVM ends, as an application's DataSource. */
    private static DataSource h2(String name) {
        org.h2.jdbcx.JdbcDataSource dataSource = new org.h2.jdbcx.JdbcDataSource();
        dataSource.setURL("jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1");
        return dataSource;
    }

    @Test
    void jdbcOnTheApplicationsDataSourceWhenChosen() {
        DataSource shop = h2("shop");
        runner.withBean(DataSource.class, () -> shop)
                .withPropertyValues("distlock.backend=jdbc", "distlock.jdbc.table=shop_locks", "distlock.lease-time=7s").run(context -> {
                    assertThat(context).hasSingleBean(JdbcLockClient.class);
                    JdbcLockClient client = context.getBean(JdbcLockClient.class);
                    try (Lease lease = client.getLock("order:1").acquire(Duration.ofSeconds(5));
                            JdbcLockClient otherInstance = JdbcLockClient.builder().dataSource(shop).table("shop_locks").build()) {
                        assertThat(lease.remaining()).isLessThanOrEqualTo(Duration.ofSeconds(7));
                        assertThat(otherInstance.getLock("order:1").tryAcquire(Duration.ZERO)).as("held for another instance too").isEmpty();
                        try (Connection connection = shop.getConnection(); Statement statement = connection.createStatement();
                                ResultSet held = statement.executeQuery("SELECT COUNT(*) FROM shop_locks WHERE owner IS NOT NULL")) {
                            assertThat(held.next()).isTrue();
                            assertThat(held.getInt(1)).as("the lock is a row in the application's database").isEqualTo(1);
                        }
                    }
                });
    }

    @Test
    void jdbcOnTheDataSourceSpringBootMakesFromSpringDatasourceProperties() {
        Class<?> dataSources = java.util.stream.Stream.of("org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration", // Boot 3.5
                        "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration") // Boot 4 (spring-boot-jdbc)
                .map(name -> {
                    try {
                        return Class.forName(name);
                    } catch (ClassNotFoundException e) {
                        return null;
                    }
                }).filter(java.util.Objects::nonNull).findFirst().orElseThrow(() -> new AssertionError("no DataSourceAutoConfiguration on the classpath"));
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(dataSources, DistlockAutoConfiguration.class))
                .withPropertyValues("spring.datasource.url=jdbc:h2:mem:boot-made;DB_CLOSE_DELAY=-1", "distlock.backend=jdbc")
                .run(context -> {
                    assertThat(context).hasSingleBean(JdbcLockClient.class).hasSingleBean(DataSource.class);
                    assertThat(context.getBean(LockClient.class).getLock("boot-made").tryAcquire(Duration.ofSeconds(5))).isPresent();
                    try (Connection connection = context.getBean(DataSource.class).getConnection(); Statement statement = connection.createStatement();
                            ResultSet rows = statement.executeQuery("SELECT COUNT(*) FROM distlock_locks")) {
                        assertThat(rows.next()).isTrue();
                        assertThat(rows.getInt(1)).as("the lock table is in the application's database").isEqualTo(1);
                    }
                });
    }

    @Test
    void jdbcFromItsOwnUrlWhenTheApplicationHasNoDataSource() {
        runner.withPropertyValues("distlock.backend=jdbc", "distlock.jdbc.url=jdbc:h2:mem:locks-by-url;DB_CLOSE_DELAY=-1").run(context -> {
            assertThat(context).hasSingleBean(JdbcLockClient.class);
            assertThat(context.getBean(LockClient.class).getLock("by-url").tryAcquire(Duration.ofSeconds(5))).isPresent();
        });
    }

    @Test
    void jdbcWithNeitherADataSourceNorAUrlFailsSayingWhatToSet() {
        runner.withPropertyValues("distlock.backend=jdbc").run(context -> assertThat(context).hasFailed()
                .getFailure().rootCause().hasMessageContaining("distlock.jdbc.url").hasMessageContaining("no DataSource bean"));
        runner.withBean("first", DataSource.class, () -> h2("first")).withBean("second", DataSource.class, () -> h2("second"))
                .withPropertyValues("distlock.backend=jdbc").run(context -> assertThat(context).hasFailed()
                        .getFailure().rootCause().hasMessageContaining("several DataSource beans and none is primary"));
    }

    @Test
    void theApplicationsLettuceClientResourcesAreBorrowedAndLeftRunning() {
        DefaultClientResources real = DefaultClientResources.create();
        Set<String> used = ConcurrentHashMap.newKeySet();
        ClientResources watched = (ClientResources) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {ClientResources.class},
                (proxy, method, args) -> {
                    used.add(method.getName());
                    return method.invoke(real, args);
                });
        try {
            runner.withBean(ClientResources.class, () -> watched).run(context ->
                    assertThat(context.getBean(LockClient.class).getLock("resources").tryAcquire(Duration.ofSeconds(5))).isPresent());
            assertThat(used).contains("eventLoopGroupProvider", "eventExecutorGroup", "timer");
            assertThat(used).as("the client never shut the application's resources down").doesNotContain("shutdown");
        } finally {
            real.shutdown();
        }
    }

    @Test
    void everyPropertyHasMetadataForIdes() throws Exception {
        try (var in = getClass().getClassLoader().getResourceAsStream("META-INF/spring-configuration-metadata.json")) {
            assertThat(in).isNotNull();
            String metadata = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            assertThat(metadata).contains("\"distlock.backend\"", "\"distlock.target\"", "\"distlock.namespace\"", "\"distlock.lease-time\"", "\"distlock.local-handoffs\"", "\"distlock.wait-time\"",
                    "\"distlock.operation-timeout\"", "\"distlock.redis.uri\"", "\"distlock.redis.key-prefix\"",
                    "\"distlock.zookeeper.connect-string\"", "\"distlock.zookeeper.namespace\"", "\"distlock.jdbc.url\"",
                    "\"distlock.jdbc.table\"", "\"distlock.jdbc.create-table\"");
        }
    }
}
