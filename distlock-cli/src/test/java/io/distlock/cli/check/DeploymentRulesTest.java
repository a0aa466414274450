package io.distlock.cli.check;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.checker.FaultKind;
import java.time.Duration;
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
        try (SentinelDeployment acknowledged = new SentinelDeployment(settings(1))) {
            assertThat(acknowledged.lockLosingFaults()).isEmpty();
            assertThat(acknowledged.requeueFaults()).containsExactly(FaultKind.FAILOVER);
        }
        try (SentinelDeployment unacknowledged = new SentinelDeployment(settings(0))) {
            assertThat(unacknowledged.lockLosingFaults()).containsExactly(FaultKind.FAILOVER);
            assertThat(unacknowledged.requeueFaults()).isEmpty();
        }
    }

    @Test
    void aZooKeeperMembersLossMayRequeueWaitersButLosesNoLock() {
        try (ZooKeeperDeployment zooKeeper = new ZooKeeperDeployment(settings(0))) {
            assertThat(zooKeeper.lockLosingFaults()).isEmpty();
            assertThat(zooKeeper.requeueFaults()).containsExactly(FaultKind.MEMBER);
        }
    }
}
