package io.distlock.cli.check;

import io.distlock.redis.RedisLockClient;
import io.distlock.servers.Await;
import io.distlock.servers.RedisClusterGroup;
import io.distlock.servers.RedisReplicaGroup;
import io.distlock.servers.RedisServer;
import io.distlock.servers.Resp;
import io.distlock.servers.TcpProxy;
import io.distlock.servers.ZooKeeperEnsemble;
import io.distlock.checker.Event;
import io.distlock.checker.Fault;
import io.distlock.checker.FencedWrite;
import io.distlock.checker.History;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * One run of {@code distlock check}: starts the servers and the client processes, lets the nemesis
 * inject faults on a schedule, and returns the recorded {@link History}.
 *
 * <p>Every deployment has a separate store server that is never faulted (the register and the fenced
 * store). Redis: the lock server (faulted), a replica of it when the promote fault is on; each client
 * reaches the lock server through its own {@link TcpProxy}, so one client's connection can be cut, and
 * all clients can be pointed at a promoted replica. Sentinel: a master, two replicas, three Sentinels.
 * Cluster: three masters with a replica each.
 * RedLock: five independent masters. ZooKeeper: a 3-member in-process ensemble.
 */
final class CheckRun implements AutoCloseable {
    private final CheckTarget target;
    private final CheckBackend backend;
    private final int minReplicas;
    private final int processes;
    private final long leaseMs;
    private final long seed;
    private final PrintStream progress;
    private final Random random;
    private final List<Fault> faults = new ArrayList<>();
    private final List<TcpProxy> proxies = new ArrayList<>();
    private RedisServer master;
    private RedisServer replica;
    private RedisServer store;
    private ZooKeeperEnsemble ensemble;
    private RedisReplicaGroup group;
    private RedisClusterGroup cluster;
    private final List<RedisServer> redLockNodes = new ArrayList<>();
    private int nextNode;
    private CheckWorkers workers;
    private long startNanos;
    private int nextMember;

    CheckRun(CheckTarget target, CheckBackend backend, int minReplicas, int processes, long leaseMs, long seed, PrintStream progress) {
        this.target = target;
        this.backend = backend;
        this.minReplicas = minReplicas;
        this.processes = processes;
        this.leaseMs = leaseMs;
        this.seed = seed;
        this.progress = progress;
        this.random = new Random(seed);
    }

    /** Runs the workload for {@code duration} with the given faults (in rotation) and returns the history. */
    History run(Duration duration, List<String> faultKinds) throws Exception {
        startServers(faultKinds.contains("promote"));
        workers = new CheckWorkers(processes, this::workerArgs);
        progress.printf(Locale.ROOT, "starting %d client processes (%s, lease %d ms) ...%n", processes, target.id(), leaseMs);
        workers.startAll();
        startNanos = System.nanoTime();
        long endNanos = startNanos + duration.toNanos();
        long quiet = Math.max(1500, leaseMs * 2);
        int round = 0;
        long lastStatus = startNanos;
        while (true) {
            sleepUntil(Math.min(endNanos, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(quiet)));
            if (System.nanoTime() - lastStatus > TimeUnit.SECONDS.toNanos(10)) {
                lastStatus = System.nanoTime();
                status();
            }
            if (faultKinds.isEmpty() || endNanos - System.nanoTime() < TimeUnit.MILLISECONDS.toNanos(faultBudgetMs())) {
                break;
            }
            inject(faultKinds.get(round++ % faultKinds.size()));
        }
        sleepUntil(endNanos);
        long stopped = System.nanoTime();
        workers.close();
        status();
        return new History(workers.events(), faults, startNanos, stopped, TimeUnit.MILLISECONDS.toNanos(leaseMs),
                finalRegister(), fencedLog());
    }

    /** Worker output that is not an event (errors), for diagnosing a failed run. */
    List<String> workerOutput() {
        return workers == null ? List.of() : workers.output();
    }

    private long faultBudgetMs() {
        return leaseMs * 3 + 8000; // finding a holder, the longest fault, and time to see the system recover
    }

    private void status() {
        long acquisitions = workers.events().stream().filter(e -> e.type() == Event.Type.OK && e.op().equals("acquire")).count();
        progress.printf(Locale.ROOT, "[%5.1f s] %d acquisitions, %d faults%n", seconds(System.nanoTime()), acquisitions, faults.size());
    }

    private void startServers(boolean withReplica) {
        progress.print("starting servers ... ");
        store = RedisServer.launch();
        switch (backend) {
            case ZOOKEEPER -> {
                ensemble = ZooKeeperEnsemble.launch(3);
                progress.println("store " + store.uri() + ", ZooKeeper ensemble " + ensemble.connectString());
            }
            case SENTINEL -> {
                group = RedisReplicaGroup.launch(2).withSentinels(3, Duration.ofSeconds(1));
                progress.println("store " + store.uri() + ", locks " + group.sentinelUri() + " (a master, 2 replicas, 3 Sentinels"
                        + (minReplicas > 0 ? ", every lock write acknowledged by " + minReplicas + " replica(s)" : "") + ")");
            }
            case CLUSTER -> {
                cluster = RedisClusterGroup.launch();
                progress.println("store " + store.uri() + ", locks on a cluster of 3 masters + 3 replicas, seed " + cluster.seedUri());
            }
            case REDLOCK -> {
                for (int i = 0; i < 5; i++) {
                    redLockNodes.add(RedisServer.launch());
                }
                progress.println("store " + store.uri() + ", RedLock over " + redLockUris());
            }
            case REDIS -> {
                master = RedisServer.launch();
                if (withReplica) {
                    replica = RedisServer.launch();
                    replicaOf(replica, master);
                }
                for (int i = 0; i < processes; i++) {
                    proxies.add(TcpProxy.to(master.port()));
                }
                progress.println("locks " + master.uri() + (replica != null ? " (replica " + replica.uri() + ")" : "")
                        + " through one proxy per client, store " + store.uri());
            }
        }
    }

    private String redLockUris() {
        return redLockNodes.stream().map(RedisServer::uri).collect(java.util.stream.Collectors.joining(","));
    }

    private List<String> workerArgs(int slot) {
        List<String> args = new ArrayList<>(List.of("--lock", target.id(), "--store", store.uri(), "--lease-ms", Long.toString(leaseMs),
                "--seed", Long.toString(seed), "--min-replicas", Integer.toString(minReplicas)));
        switch (backend) {
            case ZOOKEEPER -> args.addAll(List.of("--zookeeper", ensemble.connectString(), "--redis", store.uri()));
            case SENTINEL -> args.addAll(List.of("--redis", group.sentinelUri()));
            case CLUSTER -> args.addAll(List.of("--redis", cluster.seedUri(), "--cluster", "true"));
            case REDLOCK -> args.addAll(List.of("--redlock", redLockUris(), "--redis", store.uri()));
            case REDIS -> args.addAll(List.of("--redis", "redis://127.0.0.1:" + proxies.get(slot).port()));
        }
        return args;
    }

    private void inject(String kind) throws Exception {
        // Hit a holder mid-work: any hold for client faults (they outlast the lease), a slow one for
        // server faults (so the holder is still working when the locks vanish).
        boolean serverFault = !List.of("pause", "kill", "partition", "expire").contains(kind);
        int slot = workers.awaitHolderInWork(serverFault ? leaseMs / 5 : 0, 2000);
        boolean holder = slot >= 0;
        if (!holder) {
            slot = random.nextInt(workers.slots());
        }
        int process = workers.processIn(slot);
        String who = "process " + process + (holder ? " (holding the lock)" : " (not holding)");
        long start = System.nanoTime();
        String description;
        switch (kind) {
            case "pause" -> {
                long pauseMs = leaseMs * 5 / 2;
                workers.pause(process);
                Thread.sleep(pauseMs);
                workers.resume(process);
                description = "paused " + who + " for " + pauseMs + " ms (SIGSTOP)";
            }
            case "expire" -> {
                long pauseMs = Math.max(2000, leaseMs * 2) + 2000;
                workers.pause(process);
                Thread.sleep(pauseMs);
                workers.resume(process);
                description = "paused " + who + " for " + pauseMs + " ms, past its ZooKeeper session timeout (session expired)";
            }
            case "kill" -> {
                workers.killAndReplace(slot);
                description = "killed " + who + " (SIGKILL) and started process " + workers.processIn(slot) + " in its place";
                faults.add(new Fault(kind, process, start, start, description));
                report(description);
                return;
            }
            case "partition" -> {
                long cutMs = leaseMs * 2;
                proxies.get(slot).cut();
                Thread.sleep(cutMs);
                proxies.get(slot).heal();
                description = "cut the connections of " + who + " for " + cutMs + " ms";
            }
            case "restart" -> {
                master.stop();
                master.start();
                Resp.call(master.port(), "REPLICAOF", "NO", "ONE");
                if (replica != null) {
                    replicaOf(replica, master);
                }
                process = -1;
                description = "restarted the lock server " + master.uri() + " without persistence (all locks gone)";
            }
            case "promote" -> {
                RedisServer old = master;
                Resp.call(replica.port(), "REPLICAOF", "NO", "ONE");
                master = replica;
                replica = old;
                proxies.forEach(proxy -> proxy.retarget(master.port()));
                replicaOf(replica, master);
                process = -1;
                description = "promoted replica " + master.uri() + " to master and pointed every client at it "
                        + "(writes not yet replicated are lost)";
            }
            case "member" -> {
                int member = nextMember++ % ensemble.size();
                ensemble.kill(member);
                Thread.sleep(3000);
                ensemble.restart(member);
                process = -1;
                description = "killed ZooKeeper member " + member + " for 3 s";
            }
            case "failover" -> {
                RedisServer old = group.sentinelMaster();
                old.kill();
                RedisServer promoted = group.awaitFailover(old, Duration.ofSeconds(30));
                old.start(); // comes back empty; the Sentinels turn it into a replica of the new master
                group.awaitRejoined(old, Duration.ofSeconds(30));
                process = -1;
                description = "killed the master " + old.uri() + "; Sentinel promoted " + promoted.uri() + "; the old master rejoined empty";
            }
            case "shard-failover" -> {
                String key = RedisLockClient.DEFAULT_KEY_PREFIX + "{check}";
                RedisServer old = cluster.masterOf(key);
                old.kill();
                Await.until(Duration.ofSeconds(60), "a replica took over the lock's shard", () -> {
                    try {
                        return cluster.masterOf(key) != old;
                    } catch (RuntimeException e) {
                        return false;
                    }
                });
                RedisServer promoted = cluster.masterOf(key);
                old.start(); // comes back empty and rejoins as the new master's replica
                cluster.awaitHealthy(Duration.ofSeconds(60));
                process = -1;
                description = "killed " + old.uri() + ", the master of the lock's shard; the cluster promoted " + promoted.uri()
                        + "; the old master rejoined empty";
            }
            case "node-restart" -> {
                RedisServer node = redLockNodes.get(nextNode++ % redLockNodes.size());
                node.stop();
                node.start();
                process = -1;
                description = "restarted RedLock node " + node.uri() + " without persistence (it forgot its votes)";
            }
            case "nodes-down" -> {
                List<RedisServer> down = List.of(redLockNodes.get(nextNode++ % 5), redLockNodes.get(nextNode++ % 5));
                down.forEach(RedisServer::kill);
                Thread.sleep(Math.max(2000, leaseMs * 2));
                down.forEach(RedisServer::start);
                process = -1;
                description = "killed RedLock nodes " + down.get(0).uri() + " and " + down.get(1).uri() + " (a minority) for "
                        + Math.max(2000, leaseMs * 2) + " ms";
            }
            default -> throw new IllegalArgumentException("unknown fault " + kind);
        }
        faults.add(new Fault(kind, process, start, System.nanoTime(), description));
        report(description);
    }

    private void report(String description) {
        progress.printf(Locale.ROOT, "[%5.1f s] %s%n", seconds(System.nanoTime()), description);
    }

    private static void replicaOf(RedisServer replica, RedisServer master) {
        Resp.call(replica.port(), "REPLICAOF", "127.0.0.1", Integer.toString(master.port()));
    }

    private long finalRegister() {
        Object value = Resp.call(store.port(), "GET", CheckWorker.REGISTER);
        return value == null ? 0L : Long.parseLong((String) value);
    }

    private List<FencedWrite> fencedLog() {
        return ((List<?>) Resp.call(store.port(), "LRANGE", CheckWorker.FENCED_LOG, "0", "-1")).stream().map(line -> {
            String[] parts = ((String) line).split(":");
            return new FencedWrite(Long.parseLong(parts[0]), Integer.parseInt(parts[1]), Long.parseLong(parts[2]));
        }).toList();
    }

    private double seconds(long nanos) {
        return (nanos - startNanos) / 1e9;
    }

    private static void sleepUntil(long deadlineNanos) throws InterruptedException {
        long left;
        while ((left = deadlineNanos - System.nanoTime()) > 0) {
            TimeUnit.NANOSECONDS.sleep(left);
        }
    }

    @Override
    public void close() {
        if (workers != null) {
            workers.close();
        }
        proxies.forEach(TcpProxy::close);
        for (RedisServer server : new RedisServer[] {master, replica, store}) {
            if (server != null) {
                server.close();
            }
        }
        redLockNodes.forEach(RedisServer::close);
        if (group != null) {
            group.close();
        }
        if (cluster != null) {
            cluster.close();
        }
        if (ensemble != null) {
            ensemble.close();
        }
    }
}
