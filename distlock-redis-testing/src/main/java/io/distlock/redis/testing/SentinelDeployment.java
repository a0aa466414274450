package io.distlock.redis.testing;

import io.distlock.checker.FaultKind;
import io.distlock.servers.deployment.Deployment;
import io.distlock.servers.deployment.DeploymentSettings;
import io.distlock.servers.deployment.WorkerClient;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * A master, two replicas and three Sentinels; clients find the master through the Sentinels, and with
 * {@code --min-replicas} wait for that many replicas to acknowledge each lock write.
 */
final class SentinelDeployment extends Deployment {
    private @Nullable RedisReplicaGroup group;

    SentinelDeployment(DeploymentSettings settings) {
        super(settings);
    }

    @Override
    public Set<FaultKind> lockLosingFaults() {
        // without replica acknowledgement a failover can lose a lock; with it, the promoted replica has every granted lock
        return settings.minReplicas() == 0 ? Set.of(FaultKind.FAILOVER) : Set.of();
    }

    /**
     * With replica acknowledgement a failover keeps every granted lock, but not the queue order: until the group has
     * converged, a waiter's join can be refused as not acknowledged and rolled back, and the waiter joins again at the
     * tail (docs/guarantees.md: arrival order is lost across a failover). Found by a Sentinel read-write soak (seed 2846).
     * Without acknowledgement the failover is lock-losing, which allows reordering already.
     */
    @Override
    public Set<FaultKind> requeueFaults() {
        return settings.minReplicas() == 0 ? Set.of() : Set.of(FaultKind.FAILOVER);
    }

    @Override
    public List<FaultKind> faultKinds() {
        return List.of(FaultKind.PAUSE, FaultKind.KILL, FaultKind.FAILOVER);
    }

    @Override
    public String start(Set<FaultKind> faults) {
        RedisReplicaGroup started = RedisReplicaGroup.launch(2).withSentinels(3, Duration.ofSeconds(1));
        group = started;
        return "locks " + started.sentinelUri() + " (a master, 2 replicas, 3 Sentinels"
                + (settings.minReplicas() > 0 ? ", every lock write acknowledged by " + settings.minReplicas() + " replica(s)" : "") + ")";
    }

    @Override
    public WorkerClient workerClient(int slot) {
        String sentinels = started(group).sentinelUri();
        int hash = sentinels.indexOf('#');
        return WorkerClient.of(sentinels.substring(0, hash) + "?minReplicas=" + settings.minReplicas() + "&replicaAckTimeout=400ms" + sentinels.substring(hash));
    }

    @Override
    public String injectServerFault(FaultKind kind) throws InterruptedException {
        if (kind != FaultKind.FAILOVER) {
            return super.injectServerFault(kind);
        }
        RedisReplicaGroup sentinels = started(group);
        RedisServer old = sentinels.sentinelMaster();
        old.kill();
        RedisServer promoted = sentinels.awaitFailover(old, Duration.ofSeconds(30));
        old.start(); // comes back empty; the Sentinels turn it into a replica of the new master
        sentinels.awaitConverged(Duration.ofSeconds(30)); // healed = one master again, the old one among its replicas
        return "killed the master " + old.uri() + "; Sentinel promoted " + promoted.uri() + "; the old master rejoined empty";
    }

    @Override
    public void close() {
        if (group != null) {
            group.close();
        }
    }
}
