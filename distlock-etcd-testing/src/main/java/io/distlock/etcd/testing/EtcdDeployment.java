package io.distlock.etcd.testing;

import io.distlock.checker.FaultKind;
import io.distlock.servers.deployment.Deployment;
import io.distlock.servers.deployment.DeploymentSettings;
import io.distlock.servers.deployment.WorkerClient;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/** A three-member etcd cluster; followers are killed round robin, or the leader. */
final class EtcdDeployment extends Deployment {
    private static final Duration MEMBER_DOWN = Duration.ofSeconds(3);
    /** The workers' operation timeout: a session-bound call may wait out a member's failure. */
    private static final Duration OPERATION_TIMEOUT = Duration.ofSeconds(2);
    /** Where the run's locks live. */
    private static final String NAMESPACE = "distlock-check";

    private @Nullable EtcdCluster cluster;
    private int nextMember;

    EtcdDeployment(DeploymentSettings settings) {
        super(settings);
    }

    /** The workers' session TTL: twice the lease, in whole seconds, at least 2 s. */
    static Duration sessionTtlFor(Duration lease) {
        return Duration.ofSeconds(Math.max(2, (lease.toMillis() * 2 + 999) / 1000));
    }

    @Override
    public List<FaultKind> faultKinds() {
        return List.of(FaultKind.PAUSE, FaultKind.KILL, FaultKind.EXPIRE, FaultKind.MEMBER, FaultKind.LEADER);
    }

    @Override
    public String start(Set<FaultKind> faults) {
        EtcdCluster started = EtcdCluster.launch(3, false);
        cluster = started;
        return "etcd cluster " + started.endpoints();
    }

    @Override
    public WorkerClient workerClient(int slot) {
        return new WorkerClient(started(cluster).registryTarget() + "?sessionTtl=" + WorkerClient.parameter(sessionTtlFor(settings.lease())),
                NAMESPACE, OPERATION_TIMEOUT);
    }

    @Override
    public Duration operationTimeout() {
        return OPERATION_TIMEOUT;
    }

    @Override
    public Duration sessionTimeout() {
        return sessionTtlFor(settings.lease());
    }

    /**
     * A member's (or the leader's) loss can outlast the workers' short session TTL (2 s for a 500 ms lease) before a
     * client reaches a member that answers its keep-alive; the client then gives its session up, as it must, and its
     * waiters join again at the tail on a new session lease (documented in docs/guarantees.md). Holders let go and are
     * told. Found by the first etcd fair-lock soak (seed 3002): waiters overtaken about 2.3 s after a leader's kill,
     * and the session losses 3 s after a leader's kill in workers.log of the next run (seed 3004).
     */
    @Override
    public Set<FaultKind> requeueFaults() {
        return Set.of(FaultKind.MEMBER, FaultKind.LEADER);
    }

    @Override
    public String injectServerFault(FaultKind kind) throws InterruptedException {
        EtcdCluster members = started(cluster);
        int leader = members.awaitLeader();
        int victim;
        if (kind == FaultKind.LEADER) {
            victim = leader;
        } else if (kind == FaultKind.MEMBER) {
            victim = nextMember++ % members.size();
        } else {
            return super.injectServerFault(kind);
        }
        EtcdMember member = members.member(victim);
        member.kill();
        Thread.sleep(MEMBER_DOWN.toMillis());
        member.start();
        members.awaitLeader();
        return "killed etcd member " + member.name() + (victim == leader ? " (the leader)" : "") + " for " + MEMBER_DOWN.toSeconds() + " s";
    }

    @Override
    public void close() {
        if (cluster != null) {
            cluster.close();
        }
    }
}
