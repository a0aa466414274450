package io.distlock.cli.check;

import io.distlock.LockClient;
import io.distlock.LockListener;
import io.distlock.LockOptions;
import io.distlock.checker.FaultKind;
import io.distlock.redis.RedisKeys;
import io.distlock.redis.RedisLockClient;
import io.distlock.redis.testing.RedisClusterGroup;
import io.distlock.redis.testing.RedisServer;
import io.distlock.servers.Await;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/** A Redis Cluster of three masters with a replica each; clients in cluster mode. */
final class ClusterDeployment extends Deployment {
    /** The key of the checked lock (the workers lock {@code check}), whose shard the failover hits. */
    private static final String LOCK_KEY = RedisKeys.defaults().lockKey(CheckWorker.LOCK_NAME);

    private @Nullable RedisClusterGroup cluster;

    ClusterDeployment(DeploymentSettings settings) {
        super(settings);
    }

    @Override
    Set<FaultKind> lockLosingFaults() {
        return Set.of(FaultKind.SHARD_FAILOVER); // asynchronous replication; minReplicas is not offered in cluster mode
    }

    @Override
    List<FaultKind> faultKinds() {
        return List.of(FaultKind.PAUSE, FaultKind.KILL, FaultKind.SHARD_FAILOVER);
    }

    @Override
    String start(Set<FaultKind> faults) {
        RedisClusterGroup started = RedisClusterGroup.launch();
        cluster = started;
        return "locks on a cluster of 3 masters + 3 replicas, seed " + started.seedUri();
    }

    @Override
    WorkerClient workerClient(int slot) {
        return new WorkerClient(Clients.class, running().seedUri());
    }

    @Override
    String injectServerFault(FaultKind kind) throws InterruptedException {
        if (kind != FaultKind.SHARD_FAILOVER) {
            return super.injectServerFault(kind);
        }
        RedisClusterGroup nodes = running();
        RedisServer old = nodes.masterOf(LOCK_KEY);
        old.kill();
        Await.untilAnswered(Duration.ofSeconds(60), "a replica took over the lock's shard", () -> nodes.masterOf(LOCK_KEY) != old);
        RedisServer promoted = nodes.masterOf(LOCK_KEY);
        old.start(); // comes back empty and rejoins as the new master's replica
        nodes.awaitHealthy(Duration.ofSeconds(60));
        return "killed " + old.uri() + ", the master of the lock's shard; the cluster promoted " + promoted.uri()
                + "; the old master rejoined empty";
    }

    private RedisClusterGroup running() {
        if (cluster == null) {
            throw new IllegalStateException("the cluster deployment is not started");
        }
        return cluster;
    }

    @Override
    public void close() {
        if (cluster != null) {
            cluster.close();
        }
    }

    /** Worker clients in cluster mode; the target is a seed node's URI. */
    static final class Clients implements WorkerClientFactory {
        @Override
        public LockClient create(String target, LockOptions options, LockListener listener) {
            return RedisLockClient.builder().uri(target).cluster(true).lockOptions(options).operationTimeout(DEFAULT_OPERATION_TIMEOUT).listener(listener).build();
        }
    }
}
