package io.distlock.cli.check;

import io.distlock.checker.Fault;
import io.distlock.checker.FaultKind;
import io.distlock.checker.FencedWrite;
import io.distlock.checker.History;
import io.distlock.redis.testing.RedisServer;
import io.distlock.redis.testing.Resp;
import io.distlock.servers.TcpProxy;
import io.distlock.servers.deployment.Deployment;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * One run of {@code distlock check}: starts the store, the deployment and the client processes, lets
 * the nemesis inject faults on a schedule, and returns the recorded {@link History}.
 *
 * <p>The store (the register and the fenced store) is a redis-server of its own that is never faulted.
 * Client faults are injected here, the same way on every deployment; server faults by the
 * {@link Deployment}.
 */
final class CheckRun implements AutoCloseable {
    private final Workload workload;
    private final Deployment deployment;
    private final int processes;
    private final long leaseMs;
    private final long seed;
    private final PrintStream progress;
    private final Random random;
    private final List<Fault> faults = new ArrayList<>();
    private @Nullable RedisServer store;
    private @Nullable CheckWorkers workers;
    private long startNanos;

    CheckRun(Workload workload, Deployment deployment, int processes, Duration lease, long seed, PrintStream progress) {
        this.workload = workload;
        this.deployment = deployment;
        this.processes = processes;
        this.leaseMs = lease.toMillis();
        this.seed = seed;
        this.progress = progress;
        this.random = new Random(seed);
    }

    /** Runs the workload for {@code duration} with the given faults (in rotation) and returns the history. */
    History run(Duration duration, List<FaultKind> faultKinds) throws Exception {
        progress.print("starting servers ... ");
        RedisServer storeServer = RedisServer.launch();
        store = storeServer;
        String servers = deployment.start(new LinkedHashSet<>(faultKinds));
        progress.println(servers + ", store " + storeServer.uri());
        CheckWorkers started = new CheckWorkers(processes, slot -> workerArgs(storeServer, slot));
        workers = started;
        progress.printf(Locale.ROOT, "starting %d client processes (%s, lease %d ms) ...%n", processes, workload.describe(), leaseMs);
        started.startAll();
        startNanos = System.nanoTime();
        long endNanos = startNanos + duration.toNanos();
        long quiet = quietMs(leaseMs);
        int round = 0;
        long lastStatus = startNanos;
        while (true) {
            sleepUntil(Math.min(endNanos, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(quiet)));
            if (System.nanoTime() - lastStatus > TimeUnit.SECONDS.toNanos(10)) {
                lastStatus = System.nanoTime();
                status(started);
            }
            if (faultKinds.isEmpty() || endNanos - System.nanoTime() < TimeUnit.MILLISECONDS.toNanos(faultBudgetMs())) {
                break;
            }
            inject(started, faultKinds.get(round++ % faultKinds.size()));
        }
        sleepUntil(endNanos);
        long stopped = System.nanoTime();
        started.close();
        status(started);
        return new History(started.events(), faults, startNanos, stopped, TimeUnit.MILLISECONDS.toNanos(leaseMs),
                finalRegister(storeServer), fencedLog(storeServer), rules());
    }

    /** What the checker must know of this lock and deployment to judge overlaps and order. */
    private History.Rules rules() {
        return History.Rules.DEFAULT.withSharedLimit(workload.sharedLimit()).withLockLosingFaults(deployment.lockLosingFaults())
                .withRequeueFaults(deployment.requeueFaults())
                .withOrderBound(workload.promisesArrivalOrder() ? orderBound(deployment.operationTimeout()).toNanos() : 0)
                .withWait(CheckWorker.waitFor(leaseMs).toNanos());
    }

    /**
     * How long an acquire must have been pending to have surely joined the server's queue: the engine fails a join
     * not answered within the operation timeout (plus its 250 ms of grace), and the client may take a moment to
     * send it after the invoke is stamped.
     */
    static Duration orderBound(Duration operationTimeout) {
        return operationTimeout.plusMillis(250 + 500);
    }

    /** Worker output that is not an event (errors), for diagnosing a failed run. */
    List<String> workerOutput() {
        return workers == null ? List.of() : workers.output();
    }

    /** The same output, each line with when it was read (the events' clock), for workers.log. */
    List<CheckWorkers.OutputLine> stampedWorkerOutput() {
        return workers == null ? List.of() : workers.stampedOutput();
    }

    private List<String> workerArgs(RedisServer storeServer, int slot) {
        List<String> args = new ArrayList<>(workload.workerArgs());
        args.addAll(List.of("--store", storeServer.uri(), "--lease-ms", Long.toString(leaseMs), "--seed", Long.toString(seed)));
        args.addAll(deployment.workerClient(slot).args());
        return args;
    }

    private long faultBudgetMs() {
        return faultBudgetMs(leaseMs);
    }

    private static long faultBudgetMs(long leaseMs) {
        return holderWaitMs(leaseMs) + leaseMs * 3 + 8000; // finding a holder, the longest fault, and time to see the system recover
    }

    /**
     * How long the nemesis waits for a holder in the middle of its work before it injects a fault anyway (a fault
     * that hits nobody holding tests nothing, and the run's coverage does not count it).
     */
    private static long holderWaitMs(long leaseMs) {
        return Math.max(3000, leaseMs * 4);
    }

    private static long quietMs(long leaseMs) {
        return Math.max(1500, leaseMs * 2);
    }

    /** The shortest run in which a first fault is injected: the quiet start, then the fault's budget. */
    static Duration firstFaultNeeds(Duration lease) {
        return Duration.ofMillis(quietMs(lease.toMillis()) + faultBudgetMs(lease.toMillis()));
    }

    private void status(CheckWorkers running) {
        long acquisitions = running.acquisitions();
        progress.printf(Locale.ROOT, "[%5.1f s] %d acquisitions, %d faults%n", seconds(System.nanoTime()), acquisitions, faults.size());
    }

    private void inject(CheckWorkers running, FaultKind kind) throws Exception {
        // Hit a holder mid-work: a slow one (so the holder is still between its read and its writes when
        // the fault lands: a pause then freezes it inside its critical section, and server faults make its
        // lock vanish under it); kills and partitions take any holder.
        boolean anyHolder = kind == FaultKind.KILL || kind == FaultKind.PARTITION;
        int slot = running.awaitHolderInWork(anyHolder ? 0 : leaseMs / 5, holderWaitMs(leaseMs));
        boolean holder = slot >= 0;
        if (!holder) {
            slot = random.nextInt(running.slots());
        }
        int process = running.processIn(slot);
        String who = "process " + process + (holder ? " (holding the lock)" : " (not holding)");
        long start = System.nanoTime();
        String description;
        switch (kind) {
            case PAUSE -> {
                long pauseMs = leaseMs * 5 / 2;
                pause(running, process, pauseMs);
                description = "paused " + who + " for " + pauseMs + " ms (SIGSTOP)";
            }
            case EXPIRE -> {
                long pauseMs = deployment.sessionTimeout().toMillis() + 2000;
                pause(running, process, pauseMs);
                description = "paused " + who + " for " + pauseMs + " ms, past its session timeout (session expired)";
            }
            case KILL -> {
                running.killAndReplace(slot);
                description = "killed " + who + " (SIGKILL) and started process " + running.processIn(slot) + " in its place";
                faults.add(new Fault(kind, process, start, start, description));
                report(description);
                return;
            }
            case PARTITION -> {
                long cutMs = leaseMs * 2;
                TcpProxy link = deployment.clientLink(slot)
                        .orElseThrow(() -> new IllegalStateException("the deployment has no client links to cut"));
                link.cut();
                Thread.sleep(cutMs);
                link.heal();
                description = "cut the connections of " + who + " for " + cutMs + " ms";
            }
            default -> {
                description = deployment.injectServerFault(kind);
                process = -1;
            }
        }
        faults.add(new Fault(kind, process, start, System.nanoTime(), description));
        report(description);
    }

    private static void pause(CheckWorkers running, int process, long pauseMs) throws InterruptedException {
        running.pause(process);
        Thread.sleep(pauseMs);
        running.resume(process);
    }

    private void report(String description) {
        progress.printf(Locale.ROOT, "[%5.1f s] %s%n", seconds(System.nanoTime()), description);
    }

    private static long finalRegister(RedisServer storeServer) {
        Object value = Resp.call(storeServer.port(), "GET", CheckWorker.REGISTER);
        return value == null ? 0L : Long.parseLong((String) value);
    }

    private static List<FencedWrite> fencedLog(RedisServer storeServer) {
        return ((List<?>) Objects.requireNonNull(Resp.call(storeServer.port(), "LRANGE", CheckWorker.FENCED_LOG, "0", "-1"), "LRANGE answers a list")).stream().map(line -> {
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
        deployment.close();
        if (store != null) {
            store.close();
        }
    }
}
