package io.distlock.redis.testing;

import io.distlock.checker.FaultKind;
import io.distlock.servers.deployment.Deployment;
import io.distlock.servers.deployment.DeploymentSettings;
import io.distlock.servers.deployment.WorkerClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/** Five independent Redis masters with RedLock; node faults go round robin. */
final class RedLockDeployment extends Deployment {
    private static final int NODES = 5;

    private final List<RedisServer> nodes = new ArrayList<>();
    private int nextNode;

    RedLockDeployment(DeploymentSettings settings) {
        super(settings);
    }

    @Override
    public Set<FaultKind> lockLosingFaults() {
        return Set.of(FaultKind.NODE_RESTART); // a node restarted without persistence forgets its votes
    }

    @Override
    public List<FaultKind> faultKinds() {
        return List.of(FaultKind.PAUSE, FaultKind.KILL, FaultKind.NODE_RESTART, FaultKind.NODES_DOWN);
    }

    @Override
    public String start(Set<FaultKind> faults) {
        for (int i = 0; i < NODES; i++) {
            nodes.add(RedisServer.launch());
        }
        return "RedLock over " + uris();
    }

    private String uris() {
        return nodes.stream().map(RedisServer::uri).collect(Collectors.joining(","));
    }

    @Override
    public WorkerClient workerClient(int slot) {
        String hosts = nodes.stream().map(node -> "127.0.0.1:" + node.port()).collect(Collectors.joining(","));
        return WorkerClient.of("redlock://" + hosts + "?nodeTimeout=" + Math.min(50, settings.lease().toMillis() / 10) + "ms");
    }

    @Override
    public String injectServerFault(FaultKind kind) throws InterruptedException {
        return switch (kind) {
            case NODE_RESTART -> {
                RedisServer node = nextNode();
                node.stop();
                node.start();
                yield "restarted RedLock node " + node.uri() + " without persistence (it forgot its votes)";
            }
            case NODES_DOWN -> {
                List<RedisServer> down = List.of(nextNode(), nextNode());
                long downMs = Math.max(2000, settings.lease().toMillis() * 2);
                down.forEach(RedisServer::kill);
                Thread.sleep(downMs);
                down.forEach(RedisServer::start);
                yield "killed RedLock nodes " + down.get(0).uri() + " and " + down.get(1).uri() + " (a minority) for " + downMs + " ms";
            }
            default -> super.injectServerFault(kind);
        };
    }

    private RedisServer nextNode() {
        return nodes.get(nextNode++ % nodes.size());
    }

    @Override
    public void close() {
        nodes.forEach(RedisServer::close);
    }
}
