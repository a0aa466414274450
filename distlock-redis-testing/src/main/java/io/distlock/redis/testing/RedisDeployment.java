package io.distlock.redis.testing;

import io.distlock.checker.FaultKind;
import io.distlock.servers.TcpProxy;
import io.distlock.servers.deployment.Deployment;
import io.distlock.servers.deployment.DeploymentSettings;
import io.distlock.servers.deployment.WorkerClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * One redis-server for the locks, a replica of it when the promote fault is on, and one TCP proxy per
 * client, so that one client's connections can be cut and all clients can be pointed at a promoted
 * replica. The only deployment where the textbook locks run too.
 */
final class RedisDeployment extends Deployment {
    private final List<TcpProxy> proxies = new ArrayList<>();
    private @Nullable RedisServer master;
    private @Nullable RedisServer replica;

    RedisDeployment(DeploymentSettings settings) {
        super(settings);
    }

    @Override
    public List<FaultKind> faultKinds() {
        return List.of(FaultKind.PAUSE, FaultKind.KILL, FaultKind.PARTITION, FaultKind.RESTART, FaultKind.PROMOTE);
    }

    @Override
    public String start(Set<FaultKind> faults) {
        RedisServer locks = RedisServer.launch();
        master = locks;
        if (faults.contains(FaultKind.PROMOTE)) {
            replica = RedisServer.launch();
            replicaOf(replica, locks);
        }
        for (int i = 0; i < settings.processes(); i++) {
            proxies.add(TcpProxy.to(locks.port()));
        }
        return "locks " + locks.uri() + (replica != null ? " (replica " + replica.uri() + ")" : "") + " through one proxy per client";
    }

    @Override
    public Set<FaultKind> lockLosingFaults() {
        return Set.of(FaultKind.RESTART, FaultKind.PROMOTE); // no persistence; asynchronous replication
    }

    @Override
    public WorkerClient workerClient(int slot) {
        return WorkerClient.of("redis://127.0.0.1:" + proxies.get(slot).port());
    }

    @Override
    public Optional<TcpProxy> clientLink(int slot) {
        return Optional.of(proxies.get(slot));
    }

    @Override
    public boolean runsTextbookLocks() {
        return true;
    }

    @Override
    public String injectServerFault(FaultKind kind) throws InterruptedException {
        RedisServer current = started(master);
        return switch (kind) {
            case RESTART -> {
                current.stop();
                current.start();
                Resp.call(current.port(), "REPLICAOF", "NO", "ONE");
                if (replica != null) {
                    replicaOf(replica, current);
                }
                yield "restarted the lock server " + current.uri() + " without persistence (all locks gone)";
            }
            case PROMOTE -> {
                RedisServer promoted = started(replica);
                Resp.call(promoted.port(), "REPLICAOF", "NO", "ONE");
                master = promoted;
                replica = current;
                proxies.forEach(proxy -> proxy.retarget(promoted.port()));
                replicaOf(current, promoted);
                yield "promoted replica " + promoted.uri() + " to master and pointed every client at it "
                        + "(writes not yet replicated are lost)";
            }
            default -> super.injectServerFault(kind);
        };
    }

    private static void replicaOf(RedisServer replica, RedisServer master) {
        Resp.call(replica.port(), "REPLICAOF", "127.0.0.1", Integer.toString(master.port()));
    }

    @Override
    public void close() {
        proxies.forEach(TcpProxy::close);
        for (RedisServer server : new RedisServer[] {master, replica}) {
            if (server != null) {
                server.close();
            }
        }
    }
}
