package io.distlock.cli.check;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.LockKind;
import io.distlock.checker.FaultKind;
import io.distlock.servers.deployment.Deployment;
import io.distlock.servers.deployment.DeploymentSettings;
import io.distlock.servers.deployment.DeploymentType;
import io.distlock.servers.deployment.Deployments;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What each deployment tells the checker about its faults, as docs/guarantees.md claims it: which faults may lose a lock
 * (then an overlap or a reordering across them is allowed) and which may only send waiters to the back of the queue
 * (a reordering is allowed, an overlap is not).
 */
class DeploymentRulesTest {

    private static DeploymentSettings settings(int minReplicas) {
        return new DeploymentSettings(5, Duration.ofMillis(500), minReplicas);
    }

    /**
     * Issue 28, soak finding S3 (Sentinel read-write soak, seed 2846): three grants ahead of a waiter that had joined
     * during a failover (the fault ran until the group converged), judged a violation because the checker counted a
     * failover with replica acknowledgement as neither lock-losing nor requeuing, although arrival order is documented as
     * lost across a failover. No overlap: every lock survived.
     */
    @Test
    void aSentinelFailoverWithReplicaAcknowledgementMayRequeueWaitersButLosesNoLock() {
        try (Deployment acknowledged = Deployments.byId("sentinel").create(settings(1))) {
            assertThat(acknowledged.lockLosingFaults()).isEmpty();
            assertThat(acknowledged.requeueFaults()).containsExactly(FaultKind.FAILOVER);
        }
        try (Deployment unacknowledged = Deployments.byId("sentinel").create(settings(0))) {
            assertThat(unacknowledged.lockLosingFaults()).containsExactly(FaultKind.FAILOVER);
            assertThat(unacknowledged.requeueFaults()).isEmpty();
        }
    }

    @Test
    void aZooKeeperMembersLossMayRequeueWaitersButLosesNoLock() {
        try (Deployment zooKeeper = Deployments.byId("zookeeper").create(settings(0))) {
            assertThat(zooKeeper.lockLosingFaults()).isEmpty();
            assertThat(zooKeeper.requeueFaults()).containsExactly(FaultKind.MEMBER);
        }
    }

    /**
     * Issue 30, the first etcd fair-lock soak (seed 3002): waiters overtaken across a leader's kill, which outlasted the
     * workers' 2 s session TTL, so their clients gave their sessions up and they joined again at the tail, as
     * documented. Nothing overlapped.
     */
    @Test
    void anEtcdMembersOrLeadersLossMayRequeueWaitersButLosesNoLock() {
        try (Deployment etcd = Deployments.byId("etcd").create(settings(0))) {
            assertThat(etcd.lockLosingFaults()).isEmpty();
            assertThat(etcd.requeueFaults()).containsExactlyInAnyOrder(FaultKind.MEMBER, FaultKind.LEADER);
        }
    }

    /**
     * Issue 30: on the SQL databases a waiter's row in the queue table is a heartbeat of one lease; a restart or ended
     * sessions can outlast it, and the waiter joins again at the tail. Holds are kept (the data persists).
     */
    @Test
    void aSqlRestartOrEndedSessionsMayRequeueWaitersButLoseNoLock() {
        for (String id : List.of("postgres", "mysql", "h2")) {
            try (Deployment database = Deployments.byId(id).create(settings(0))) {
                assertThat(database.lockLosingFaults()).as(id).isEmpty();
                assertThat(database.requeueFaults()).as(id).containsExactlyInAnyOrder(FaultKind.RESTART, FaultKind.CONNECTION_KILL);
            }
        }
    }

    /** Issue 29: the checker finds every deployment through the -testing modules' providers, with the kinds each backend has. */
    @Test
    void everyDeploymentIsFoundByItsIdWithItsBackendsKinds() {
        assertThat(Deployments.all()).extracting(DeploymentType::id)
                .containsExactlyInAnyOrder("redis", "sentinel", "cluster", "redlock", "zookeeper", "etcd", "postgres", "mysql", "h2");
        for (String id : List.of("redis", "sentinel", "cluster", "zookeeper", "etcd", "postgres", "mysql", "h2")) {
            assertThat(Deployments.byId(id).kinds()).as(id).containsExactlyInAnyOrder(LockKind.values());
        }
        assertThat(Deployments.byId("redlock").kinds()).containsExactly(LockKind.LOCK);
        assertThat(Deployments.all()).filteredOn(DeploymentType::takesMinReplicas).extracting(DeploymentType::id).containsExactly("sentinel");
        assertThatThrownBy(() -> Deployments.byId("mongo")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'mongo'").hasMessageContaining("redis").hasMessageContaining("h2");
    }
}
