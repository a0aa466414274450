package io.distlock.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.BackendUnavailableException;
import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.redis.RedisLockClient;
import io.distlock.redis.testing.RedisClusterGroup;
import io.distlock.redis.testing.RedisReplicaGroup;
import io.distlock.redis.testing.RedisServer;
import io.distlock.redis.testing.RedisServerExtension;
import io.distlock.redis.testing.Resp;
import io.distlock.zookeeper.testing.ZooKeeperServerExtension;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The starter's Redis and ZooKeeper properties, each shown by the server's own state: distlock.redis.min-replicas
 * (a grant waits for a replica, and is not reported without one), distlock.redis.cluster, distlock.redis.client-name
 * and distlock.zookeeper.session-timeout.
 */
class RedisAndZooKeeperPropertiesTest {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();
    @RegisterExtension
    static final ZooKeeperServerExtension zookeeper = new ZooKeeperServerExtension();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DistlockAutoConfiguration.class));

    @Test
    void minReplicasOneReportsAGrantOnlyOnceAReplicaHasItAndFailsTheAcquireWhenNoneAcknowledges() throws Exception {
        try (RedisReplicaGroup group = RedisReplicaGroup.launch(1, true)) {
            RedisServer master = group.master();
            RedisServer replica = group.servers().get(1);
            runner.withPropertyValues("distlock.redis.uri=" + master.uri(), "distlock.redis.min-replicas=1").run(context -> {
                LockClient locks = context.getBean(LockClient.class);
                try (Lease lease = locks.getLock("replicated").acquire(Duration.ofSeconds(5))) {
                    // WAIT answered before the acquire returned: the replica has the grant now, not eventually
                    assertThat(String.valueOf(Resp.call(replica.port(), "GET", "distlock:{replicated}")))
                            .as("the lock's key on the replica, read as soon as the acquire returned").startsWith(lease.fencingToken() + ":");
                }

                group.replicationLink(0).cut(); // the replica gets no more writes, so acknowledges none
                try {
                    assertThatThrownBy(() -> locks.getLock("unreplicated").acquire(Duration.ofSeconds(5)))
                            .as("an acquire no replica acknowledges").isInstanceOf(BackendUnavailableException.class)
                            .hasMessageContaining("fewer than the 1 required (minReplicas)");
                    try (RedisLockClient onTheMaster = RedisLockClient.create(master.uri())) {
                        assertThat(onTheMaster.getLock("unreplicated").isLocked()).as("the unacknowledged grant, rolled back on the master").isFalse();
                    }
                } finally {
                    group.replicationLink(0).heal();
                }
            });

            group.replicationLink(0).cut();
            try {
                runner.withPropertyValues("distlock.redis.uri=" + master.uri()).run(context -> {
                    try (Lease lease = context.getBean(LockClient.class).getLock("unreplicated").acquire(Duration.ofSeconds(5))) {
                        assertThat(lease.isValid()).as("without min-replicas, the same acquire with the replica cut off").isTrue();
                    }
                });
            } finally {
                group.replicationLink(0).heal();
            }
        }
    }

    @Test
    void clusterTrueTreatsTheUriAsASeedAndPutsEachLockOnTheMasterOfItsSlot() throws Exception {
        try (RedisClusterGroup cluster = RedisClusterGroup.launch()) {
            Map<Integer, String> nameOnEachMaster = new LinkedHashMap<>();
            for (int i = 0; nameOnEachMaster.size() < 3; i++) {
                nameOnEachMaster.putIfAbsent(cluster.masterOf("distlock:{order-" + i + "}").port(), "order-" + i);
            }
            runner.withPropertyValues("distlock.redis.uri=" + cluster.seedUri(), "distlock.redis.cluster=true").run(context -> {
                LockClient locks = context.getBean(LockClient.class);
                for (Map.Entry<Integer, String> entry : nameOnEachMaster.entrySet()) {
                    try (Lease lease = locks.getLock(entry.getValue()).acquire(Duration.ofSeconds(5))) {
                        assertThat(String.valueOf(Resp.call(entry.getKey(), "GET", "distlock:{" + entry.getValue() + "}")))
                                .as("the key of " + entry.getValue() + " on the master of its slot, port " + entry.getKey())
                                .startsWith(lease.fencingToken() + ":");
                    }
                }
            });
            String elsewhere = nameOnEachMaster.entrySet().stream().filter(entry -> entry.getKey() != cluster.nodes().get(0).port())
                    .findFirst().orElseThrow().getValue();
            runner.withPropertyValues("distlock.redis.uri=" + cluster.seedUri(), "distlock.redis.cluster=false").run(context ->
                    assertThatThrownBy(() -> context.getBean(LockClient.class).getLock(elsewhere).acquire(Duration.ofSeconds(5)))
                            .as("cluster=false: a lock whose slot is on another master").hasMessageContaining("MOVED"));
        }
    }

    @Test
    void clientNameNamesTheConnectionsInClientListAndDefaultsToTheApplicationName() {
        runner.withPropertyValues("distlock.redis.uri=" + redis.server().uri(), "distlock.redis.client-name=shop-locks",
                "spring.application.name=shop").run(context -> {
                    context.getBean(LockClient.class).getLock("named").tryAcquire(Duration.ZERO).ifPresent(Lease::close);
                    assertThat(clientNames()).as("names in CLIENT LIST").contains("shop-locks");
                });
        runner.withPropertyValues("distlock.redis.uri=" + redis.server().uri(), "spring.application.name=billing service")
                .run(context -> assertThat(clientNames()).as("names in CLIENT LIST").contains("billing-service"));
    }

    @Test
    void sessionTimeoutIsTheSessionTheServerNegotiatedWithTheClient() throws Exception {
        // the test server's tick is 250 ms: it grants sessions of 0.5 to 5 s
        for (Duration asked : List.of(Duration.ofSeconds(1), Duration.ofSeconds(3))) {
            String namespace = "session-" + asked.toMillis();
            runner.withPropertyValues("distlock.backend=zookeeper", "distlock.zookeeper.connect-string=" + zookeeper.directTarget(),
                    "distlock.zookeeper.namespace=" + namespace, "distlock.zookeeper.session-timeout=" + asked.toMillis() + "ms").run(context -> {
                        try (Lease lease = context.getBean(LockClient.class).getLock("timed").acquire(Duration.ofSeconds(5))) {
                            assertThat(serverSessionTimeoutOfTheSessionHolding("/" + namespace + "/"))
                                    .as("the session timeout of the holder's session, on the server (JMX)").isEqualTo((int) asked.toMillis());
                        }
                    });
        }
    }

    private static List<String> clientNames() {
        List<String> names = new ArrayList<>();
        for (String line : Resp.text(redis.server().port(), "CLIENT", "LIST").split("\n")) {
            for (String field : line.split(" ")) {
                if (field.startsWith("name=") && field.length() > "name=".length()) {
                    names.add(field.substring("name=".length()));
                }
            }
        }
        return names;
    }

    /** Returns the session timeout the ZooKeeper server (in this JVM) agreed with the session owning an ephemeral node under {@code prefix}. */
    private static int serverSessionTimeoutOfTheSessionHolding(String prefix) throws Exception {
        MBeanServer beans = ManagementFactory.getPlatformMBeanServer();
        List<Integer> found = new ArrayList<>();
        for (ObjectName connection : beans.queryNames(new ObjectName("org.apache.ZooKeeperService:*"), null)) {
            if (!connection.getKeyPropertyListString().contains("Connections")) {
                continue;
            }
            String[] ephemerals = (String[]) beans.getAttribute(connection, "EphemeralNodes");
            if (ephemerals != null && Arrays.stream(ephemerals).anyMatch(path -> path.startsWith(prefix))) {
                found.add((Integer) beans.getAttribute(connection, "SessionTimeout"));
            }
        }
        assertThat(found).as("connections whose session owns a node under " + prefix).hasSize(1);
        return found.get(0);
    }
}
