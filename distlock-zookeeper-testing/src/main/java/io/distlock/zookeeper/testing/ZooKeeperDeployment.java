package io.distlock.zookeeper.testing;

import io.distlock.checker.FaultKind;
import io.distlock.servers.deployment.Deployment;
import io.distlock.servers.deployment.DeploymentSettings;
import io.distlock.servers.deployment.WorkerClient;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/** A three-member in-process ZooKeeper ensemble; members are killed round robin. */
final class ZooKeeperDeployment extends Deployment {
    private static final Duration MEMBER_DOWN = Duration.ofSeconds(3);
    /** The workers' operation timeout: a session-bound call may wait out a member's failure. */
    private static final Duration OPERATION_TIMEOUT = Duration.ofSeconds(2);
    /** Where the run's locks live. */
    private static final String NAMESPACE = "distlock-check";

    private @Nullable ZooKeeperEnsemble ensemble;
    private int nextMember;

    ZooKeeperDeployment(DeploymentSettings settings) {
        super(settings);
    }

    /** The workers' session timeout: twice the lease, at least 2 s (the ensemble allows 0.5 to 5 s). */
    static Duration sessionTimeoutFor(Duration lease) {
        return Duration.ofMillis(Math.max(2000, lease.toMillis() * 2));
    }

    @Override
    public List<FaultKind> faultKinds() {
        return List.of(FaultKind.PAUSE, FaultKind.KILL, FaultKind.EXPIRE, FaultKind.MEMBER);
    }

    /**
     * A member's loss suspends the connections of the clients on it; the workers run with the default
     * {@code waitForReconnect(false)}, which counts a suspension as the end of the session: holders let go (and are
     * told), waiters join again at the tail of the queue.
     */
    @Override
    public Set<FaultKind> requeueFaults() {
        return Set.of(FaultKind.MEMBER);
    }

    @Override
    public String start(Set<FaultKind> faults) {
        ZooKeeperEnsemble started = ZooKeeperEnsemble.launch(3);
        ensemble = started;
        return "ZooKeeper ensemble " + started.connectString();
    }

    @Override
    public WorkerClient workerClient(int slot) {
        return new WorkerClient("zk://" + started(ensemble).connectString() + "?sessionTimeout=" + WorkerClient.parameter(sessionTimeoutFor(settings.lease()))
                + "&connectionTimeout=2s", NAMESPACE, OPERATION_TIMEOUT);
    }

    @Override
    public Duration operationTimeout() {
        return OPERATION_TIMEOUT;
    }

    @Override
    public Duration sessionTimeout() {
        return sessionTimeoutFor(settings.lease());
    }

    @Override
    public String injectServerFault(FaultKind kind) throws InterruptedException {
        if (kind != FaultKind.MEMBER) {
            return super.injectServerFault(kind);
        }
        ZooKeeperEnsemble members = started(ensemble);
        int member = nextMember++ % members.size();
        members.kill(member);
        Thread.sleep(MEMBER_DOWN.toMillis());
        members.restart(member);
        return "killed ZooKeeper member " + member + " for " + MEMBER_DOWN.toSeconds() + " s";
    }

    @Override
    public void close() {
        if (ensemble != null) {
            ensemble.close();
        }
    }
}
