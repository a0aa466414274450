package io.distlock.redis.testing;

import io.distlock.checker.FaultKind;
import io.distlock.servers.Await;
import io.distlock.servers.deployment.Deployment;
import io.distlock.servers.deployment.DeploymentSettings;
import io.distlock.servers.deployment.WorkerClient;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/** A Redis Cluster of three masters with a replica each; clients in cluster mode. */
final class ClusterDeployment extends Deployment {
    /**
     * A key in the slot of the checked lock's keys, whose shard the failover hits: every key of a lock carries the lock
     * name as its hash tag ({@code distlock:{check}}), so the tag alone hashes to the same slot.
     */
    private static final String LOCK_KEY = "{" + LOCK_NAME + "}";

    private @Nullable RedisClusterGroup cluster;

    ClusterDeployment(DeploymentSettings settings) {
        super(settings);
    }

    @Override
    public Set<FaultKind> lockLosingFaults() {
        return Set.of(FaultKind.SHARD_FAILOVER); // asynchronous replication; minReplicas is not offered in cluster mode
    }

    @Override
    public List<FaultKind> faultKinds() {
        return List.of(FaultKind.PAUSE, FaultKind.KILL, FaultKind.SHARD_FAILOVER);
    }

    @Override
    public String start(Set<FaultKind> faults) {
        RedisClusterGroup started = RedisClusterGroup.launch();
        cluster = started;
        return "locks on a cluster of 3 masters + 3 replicas, seed " + started.seedUri();
    }

    @Override
    public WorkerClient workerClient(int slot) {
        return WorkerClient.of(started(cluster).seedUri().replaceFirst("^redis://", "redis-cluster://"));
    }

    @Override
    public String injectServerFault(FaultKind kind) throws InterruptedException {
        if (kind != FaultKind.SHARD_FAILOVER) {
            return super.injectServerFault(kind);
        }
        RedisClusterGroup nodes = started(cluster);
        RedisServer old = nodes.masterOf(LOCK_KEY);
        old.kill();
        Await.untilAnswered(Duration.ofSeconds(60), "a replica took over the lock's shard", () -> nodes.masterOf(LOCK_KEY) != old);
        RedisServer promoted = nodes.masterOf(LOCK_KEY);
        old.start(); // comes back empty and rejoins as the new master's replica
        nodes.awaitHealthy(Duration.ofSeconds(60));
        return "killed " + old.uri() + ", the master of the lock's shard; the cluster promoted " + promoted.uri()
                + "; the old master rejoined empty";
    }

    @Override
    public void close() {
        if (cluster != null) {
            cluster.close();
        }
    }
}
