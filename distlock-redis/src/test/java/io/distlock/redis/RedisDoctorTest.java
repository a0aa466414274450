package io.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.BackendUnavailableException;
import io.distlock.Finding;
import io.distlock.Finding.Severity;
import io.distlock.LockClients;
import io.distlock.LockOptions;
import io.distlock.OpenOptions;
import io.distlock.redis.testing.RedisClusterGroup;
import io.distlock.redis.testing.RedisReplicaGroup;
import io.distlock.redis.testing.RedisServer;
import io.distlock.redis.testing.Resp;
import io.distlock.servers.Await;
import io.distlock.servers.FreePorts;
import io.distlock.servers.TcpProxy;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The Redis doctor against real redis-servers configured both ways for each finding, asserting the exact severity. */
class RedisDoctorTest {
    private static List<Finding> diagnose(String target) {
        return LockClients.diagnose(target, OpenOptions.defaults());
    }

    private static Finding finding(List<Finding> findings, String check) {
        return findings.stream().filter(f -> f.check().equals(check)).findFirst()
                .orElseThrow(() -> new AssertionError("no finding " + check + " in " + findings));
    }

    @Test
    void anEvictingPolicyUnderAMemoryLimitIsUnsafeAndNoEvictionIsOk() {
        try (RedisServer allKeys = RedisServer.launch("--maxmemory", "10mb", "--maxmemory-policy", "allkeys-lru");
                RedisServer volatileKeys = RedisServer.launch("--maxmemory", "10mb", "--maxmemory-policy", "volatile-ttl");
                RedisServer noLimit = RedisServer.launch("--maxmemory-policy", "allkeys-lru");
                RedisServer noEviction = RedisServer.launch("--maxmemory", "10mb", "--maxmemory-policy", "noeviction")) {
            List<Finding> unsafe = diagnose(allKeys.uri());
            assertThat(finding(unsafe, "redis.eviction").severity()).isEqualTo(Severity.UNSAFE);
            assertThat(finding(unsafe, "redis.eviction").fix()).contains("noeviction");
            assertThat(Finding.exitCode(unsafe)).isEqualTo(2);
            assertThat(finding(diagnose(volatileKeys.uri()), "redis.eviction").severity()).as("lock keys carry an expiry: volatile-* evicts them")
                    .isEqualTo(Severity.UNSAFE);
            assertThat(finding(diagnose(noLimit.uri()), "redis.eviction").severity()).as("no maxmemory, nothing evicted").isEqualTo(Severity.OK);
            assertThat(finding(diagnose(noEviction.uri()), "redis.eviction").severity()).isEqualTo(Severity.OK);
        }
    }

    @Test
    void withoutPersistenceARestartIsRiskyAndAnAppendOnlyFileIsOk() {
        try (RedisServer none = RedisServer.launch();
                RedisServer appendOnly = RedisServer.launch("--appendonly", "yes");
                RedisServer unsynced = RedisServer.launch("--appendonly", "yes", "--appendfsync", "no")) {
            Finding risky = finding(diagnose(none.uri()), "redis.persistence");
            assertThat(risky.severity()).isEqualTo(Severity.RISKY);
            assertThat(risky.why()).contains("restart");
            assertThat(finding(diagnose(appendOnly.uri()), "redis.persistence").severity()).isEqualTo(Severity.OK);
            assertThat(finding(diagnose(unsynced.uri()), "redis.persistence").severity()).isEqualTo(Severity.RISKY);
            assertThat(Finding.exitCode(diagnose(appendOnly.uri()))).as("the default test server has no limit and no replicas").isZero();
        }
    }

    @Test
    void aUserWhoMayNotReadTheConfigurationGetsUnknownNotAGuess() {
        try (RedisServer server = RedisServer.launch()) {
            Resp.call(server.port(), "ACL", "SETUSER", "doctor", "on", ">secret", "~*", "+@all", "-config");
            List<Finding> findings = diagnose("redis://doctor:secret@127.0.0.1:" + server.port());
            assertThat(finding(findings, "redis.eviction").severity()).isEqualTo(Severity.UNKNOWN);
            assertThat(finding(findings, "redis.eviction").observed()).contains("CONFIG GET was refused");
            assertThat(finding(findings, "redis.persistence").severity()).isEqualTo(Severity.UNKNOWN);
            assertThat(finding(findings, "redis.version").observed()).startsWith("redis_version ");
        }
    }

    @Test
    void aUserDeniedACommandOrTheKeyPrefixIsRiskyAllowedIsOkAndUnaskableIsUnknown() {
        try (RedisServer server = RedisServer.launch()) {
            Resp.call(server.port(), "ACL", "SETUSER", "app", "on", ">pw", "~distlock:*", "&distlock:*", "+@all");
            Resp.call(server.port(), "ACL", "SETUSER", "nozadd", "on", ">pw", "~distlock:*", "&distlock:*", "+@all", "-zadd");
            Resp.call(server.port(), "ACL", "SETUSER", "elsewhere", "on", ">pw", "~other:*", "&other:*", "+@all");
            Resp.call(server.port(), "ACL", "SETUSER", "noacl", "on", ">pw", "~distlock:*", "&distlock:*", "+@all", "-acl");
            String at = "@127.0.0.1:" + server.port();
            Finding allowed = finding(diagnose("redis://app:pw" + at), "redis.permissions");
            assertThat(allowed.severity()).as(allowed.observed()).isEqualTo(Severity.OK);
            Finding noZadd = finding(diagnose("redis://nozadd:pw" + at), "redis.permissions");
            assertThat(noZadd.severity()).isEqualTo(Severity.RISKY);
            assertThat(noZadd.observed()).contains("1 of 24 denied: ZADD");
            Finding elsewhere = finding(diagnose("redis://elsewhere:pw" + at), "redis.permissions");
            assertThat(elsewhere.severity()).isEqualTo(Severity.RISKY);
            assertThat(elsewhere.observed()).contains("GET (").contains("SUBSCRIBE (");
            assertThat(finding(LockClients.diagnose("redis://elsewhere:pw" + at, OpenOptions.defaults().namespace("other:")),
                    "redis.permissions").severity()).as("the namespace the application uses is the one checked").isEqualTo(Severity.OK);
            assertThat(finding(diagnose("redis://noacl:pw" + at), "redis.permissions").severity()).isEqualTo(Severity.UNKNOWN);
        }
    }

    @Test
    void replicasWithoutMinReplicasAreRiskyWithItOkAndAReplicaTargetIsRisky() {
        try (RedisServer master = RedisServer.launch();
                RedisServer replica = RedisServer.launch("--replicaof", "127.0.0.1", Integer.toString(master.port()))) {
            Await.until(Duration.ofSeconds(30), "the replica is connected",
                    () -> "1".equals(Resp.info(master.port(), "replication", "connected_slaves")));
            assertThat(finding(diagnose(master.uri()), "redis.replication").severity()).isEqualTo(Severity.RISKY);
            assertThat(finding(diagnose(master.uri() + "?minReplicas=1"), "redis.replication").severity()).isEqualTo(Severity.OK);
            Finding onReplica = finding(diagnose(replica.uri()), "redis.replication");
            assertThat(onReplica.severity()).isEqualTo(Severity.RISKY);
            assertThat(onReplica.why()).contains("replica");
        }
    }

    @Test
    void aLeaseOfLessThanThreeSlowRoundTripsIsRiskyAndALongerOneIsOk() {
        try (RedisServer server = RedisServer.launch(); TcpProxy link = TcpProxy.to(server.port())) {
            link.delay(Duration.ofMillis(150)); // each way: a round trip takes 300 ms or more
            String target = "redis://127.0.0.1:" + link.port();
            Finding shortLease = finding(LockClients.diagnose(target, withLease(Duration.ofMillis(900))), "redis.latency");
            assertThat(shortLease.severity()).as(shortLease.observed()).isEqualTo(Severity.RISKY);
            assertThat(shortLease.observed()).contains("lease 900.0 ms");
            assertThat(shortLease.fix()).contains("longer lease");
            Finding longLease = finding(LockClients.diagnose(target, withLease(Duration.ofSeconds(30))), "redis.latency");
            assertThat(longLease.severity()).as(longLease.observed()).isEqualTo(Severity.OK);
            link.delay(Duration.ZERO);
            assertThat(finding(LockClients.diagnose(target, withLease(Duration.ofMillis(900))), "redis.latency").severity())
                    .as("without the delay a 900 ms lease is plenty").isEqualTo(Severity.OK);
        }
    }

    private static OpenOptions withLease(Duration lease) {
        return OpenOptions.defaults().lockOptions(LockOptions.builder().leaseTime(lease).build());
    }

    @Test
    void anUnreachableServerIsReportedAsSuch() {
        int port = FreePorts.next();
        assertThatThrownBy(() -> LockClients.diagnose("redis://127.0.0.1:" + port, OpenOptions.defaults().operationTimeout(Duration.ofSeconds(1))))
                .isInstanceOf(BackendUnavailableException.class).hasMessageContaining("127.0.0.1:" + port);
    }

    @Test
    @Tag("slow") // 4 Sentinels and 4 servers: run by -Pslow (CI), not by ./mvnw verify
    void oneSentinelIsRiskyThreeAreOkAndTheMasterBehindThemIsExamined() {
        try (RedisReplicaGroup lone = RedisReplicaGroup.launch(1).withSentinels(1, Duration.ofSeconds(5));
                RedisReplicaGroup three = RedisReplicaGroup.launch(1).withSentinels(3, Duration.ofSeconds(5))) {
            List<Finding> risky = diagnose(lone.sentinelUri());
            assertThat(finding(risky, "redis.sentinel").severity()).isEqualTo(Severity.RISKY);
            assertThat(finding(risky, "redis.sentinel").observed()).startsWith("1 Sentinel(s), quorum 1");
            List<Finding> ok = diagnose(three.sentinelUri());
            assertThat(finding(ok, "redis.sentinel").severity()).isEqualTo(Severity.OK);
            assertThat(finding(ok, "redis.replication").severity()).as("the master has a replica and the target no minReplicas")
                    .isEqualTo(Severity.RISKY);
            assertThat(finding(diagnose(three.sentinelUri() + "?minReplicas=1"), "redis.replication").severity()).isEqualTo(Severity.OK);

            Finding slowFailover = finding(LockClients.diagnose(three.sentinelUri(), OpenOptions.defaults()
                    .lockOptions(LockOptions.builder().leaseTime(Duration.ofSeconds(8)).build())), "redis.sentinel");
            assertThat(slowFailover.severity()).as("down-after-milliseconds 5000 against a lease of 8 s").isEqualTo(Severity.RISKY);
            assertThat(slowFailover.observed()).contains("down-after-milliseconds 5000 (lease 8000 ms)");
            assertThat(slowFailover.why()).contains("a master's death loses every lock");
            assertThat(slowFailover.fix()).contains("sentinel down-after-milliseconds <master> <at most half the lease>");
        }
    }

    @Test
    @Tag("slow") // a 6-node cluster: run by -Pslow (CI), not by ./mvnw verify
    void aClusterServingEverySlotWithReplicasIsOkAndOneWithAnUnservedSlotIsRisky() {
        try (RedisClusterGroup cluster = RedisClusterGroup.launch()) {
            String target = "redis-cluster://127.0.0.1:" + cluster.nodes().get(0).port();
            // each node learns the replicas' roles by gossip, after each master has its replica in sync; the doctor reads
            // CLUSTER NODES from whichever node its connection asks, so every node must have learnt them
            Await.until(Duration.ofSeconds(30), "every node sees three replicas", () -> cluster.nodes().stream().allMatch(node ->
                    Resp.text(node.port(), "CLUSTER", "NODES").lines().filter(line -> line.contains("slave")).count() == 3));
            List<Finding> healthy = diagnose(target);
            assertThat(finding(healthy, "redis.cluster").severity()).as(finding(healthy, "redis.cluster").observed()).isEqualTo(Severity.OK);
            assertThat(finding(healthy, "redis.eviction").observed()).as("every master examined, labelled").matches("127\\.0\\.0\\.1:\\d+: .*");
            assertThat(finding(healthy, "redis.persistence").severity()).isEqualTo(Severity.RISKY);
            for (RedisServer node : cluster.nodes()) {
                Resp.call(node.port(), "CLUSTER", "DELSLOTS", "0"); // every node forgets who serves slot 0
            }
            Await.until(Duration.ofSeconds(30), "the cluster reports slot 0 unserved",
                    () -> Resp.text(cluster.nodes().get(0).port(), "CLUSTER", "INFO").contains("cluster_state:fail"));
            Finding unserved = finding(diagnose(target), "redis.cluster");
            assertThat(unserved.severity()).as(unserved.observed()).isEqualTo(Severity.RISKY);
            assertThat(unserved.observed()).contains("cluster_slots_ok 16383");
        }
    }
}
