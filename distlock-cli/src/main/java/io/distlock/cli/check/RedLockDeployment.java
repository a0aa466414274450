package io.distlock.cli.check;

import io.distlock.LockClient;
import io.distlock.LockListener;
import io.distlock.LockOptions;
import io.distlock.checker.FaultKind;
import io.distlock.redis.RedLockClient;
import io.distlock.redis.testing.RedisServer;
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
    Set<FaultKind> lockLosingFaults() {
        return Set.of(FaultKind.NODE_RESTART); // a node restarted without persistence forgets its votes
    }

    @Override
    List<FaultKind> faultKinds() {
        return List.of(FaultKind.PAUSE, FaultKind.KILL, FaultKind.NODE_RESTART, FaultKind.NODES_DOWN);
    }

    @Override
    String start(Set<FaultKind> faults) {
        for (int i = 0; i < NODES; i++) {
            nodes.add(RedisServer.launch());
        }
        return "RedLock over " + uris();
    }

    private String uris() {
        return nodes.stream().map(RedisServer::uri).collect(Collectors.joining(","));
    }

    @Override
    WorkerClient workerClient(int slot) {
        return new WorkerClient(Clients.class, uris());
    }

    @Override
    String injectServerFault(FaultKind kind) throws InterruptedException {
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

    /** Worker clients over every node; the target is the nodes' comma-separated URIs. */
    static final class Clients implements WorkerClientFactory {
        @Override
        public LockClient create(String target, LockOptions options, LockListener listener) {
            long leaseMs = options.leaseTime().toMillis();
            return RedLockClient.builder().uris(List.of(target.split(","))).lockOptions(options)
                    .nodeTimeout(Duration.ofMillis(Math.min(50, leaseMs / 10))).operationTimeout(DEFAULT_OPERATION_TIMEOUT).listener(listener).build();
        }
    }
}
