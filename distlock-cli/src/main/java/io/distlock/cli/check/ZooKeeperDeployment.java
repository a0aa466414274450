package io.distlock.cli.check;

import io.distlock.LockClient;
import io.distlock.LockListener;
import io.distlock.LockOptions;
import io.distlock.checker.FaultKind;
import io.distlock.zookeeper.ZooKeeperLockClient;
import io.distlock.zookeeper.testing.ZooKeeperEnsemble;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/** A three-member in-process ZooKeeper ensemble; members are killed round robin. */
final class ZooKeeperDeployment extends Deployment {
    private static final Duration MEMBER_DOWN = Duration.ofSeconds(3);
    /** The workers' operation timeout: a session-bound call may wait out a member's failure. */
    private static final Duration OPERATION_TIMEOUT = Duration.ofSeconds(2);

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
    List<FaultKind> faultKinds() {
        return List.of(FaultKind.PAUSE, FaultKind.KILL, FaultKind.EXPIRE, FaultKind.MEMBER);
    }

    /**
     * A member's loss suspends the connections of the clients on it; the workers run with the default
     * {@code waitForReconnect(false)}, which counts a suspension as the end of the session: holders let go (and are
     * told), waiters join again at the tail of the queue.
     */
    @Override
    Set<FaultKind> requeueFaults() {
        return Set.of(FaultKind.MEMBER);
    }

    @Override
    String start(Set<FaultKind> faults) {
        ZooKeeperEnsemble started = ZooKeeperEnsemble.launch(3);
        ensemble = started;
        return "ZooKeeper ensemble " + started.connectString();
    }

    @Override
    WorkerClient workerClient(int slot) {
        return new WorkerClient(Clients.class, running().connectString());
    }

    @Override
    Duration operationTimeout() {
        return OPERATION_TIMEOUT;
    }

    @Override
    Duration sessionTimeout() {
        return sessionTimeoutFor(settings.lease());
    }

    @Override
    String injectServerFault(FaultKind kind) throws InterruptedException {
        if (kind != FaultKind.MEMBER) {
            return super.injectServerFault(kind);
        }
        ZooKeeperEnsemble members = running();
        int member = nextMember++ % members.size();
        members.kill(member);
        Thread.sleep(MEMBER_DOWN.toMillis());
        members.restart(member);
        return "killed ZooKeeper member " + member + " for " + MEMBER_DOWN.toSeconds() + " s";
    }

    private ZooKeeperEnsemble running() {
        if (ensemble == null) {
            throw new IllegalStateException("the ZooKeeper deployment is not started");
        }
        return ensemble;
    }

    @Override
    public void close() {
        if (ensemble != null) {
            ensemble.close();
        }
    }

    /** Worker clients on the ensemble; the target is its connect string. */
    static final class Clients implements WorkerClientFactory {
        @Override
        public LockClient create(String target, LockOptions options, LockListener listener) {
            return ZooKeeperLockClient.builder().connectString(target).sessionTimeout(sessionTimeoutFor(options.leaseTime()))
                    .connectionTimeout(Duration.ofSeconds(2)).operationTimeout(OPERATION_TIMEOUT)
                    .namespace("distlock-check").lockOptions(options).listener(listener).build();
        }
    }
}
