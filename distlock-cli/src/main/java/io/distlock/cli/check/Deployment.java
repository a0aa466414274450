package io.distlock.cli.check;

import io.distlock.checker.FaultKind;
import io.distlock.servers.TcpProxy;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * One deployment {@code distlock check} can build and fault (option {@code --backend}): its servers,
 * the faults it supports and how it injects those that hit its servers, and how each worker process
 * builds its lock client. Adding a backend to the checker is adding one subclass (and its line in
 * {@link DeploymentKind}).
 */
abstract class Deployment implements AutoCloseable {
    /*
     * Life cycle: constructed with the run's settings (cheap: the command asks faultKinds() before any
     * server runs), then start(), then workerClient() for every worker and injectServerFault() from the
     * coordinator's thread, one fault at a time, then close(). Client faults (pause, kill, partition,
     * expire) are the same on every deployment and live in CheckRun; a deployment only supplies what
     * they need from it: a per-client link to cut (clientLink) and its session timeout (sessionTimeout).
     * The store that the workload writes to is not part of the deployment: it is never faulted.
     */

    /** The operation timeout of the workers' clients unless a deployment needs another. */
    static final Duration DEFAULT_OPERATION_TIMEOUT = Duration.ofSeconds(1);

    /** The settings of this run. */
    protected final DeploymentSettings settings;

    protected Deployment(DeploymentSettings settings) {
        this.settings = settings;
    }

    /** Returns the faults this deployment supports, client and server ones, in the order of the first round. */
    abstract List<FaultKind> faultKinds();

    /**
     * Starts the servers for a run with these faults (some need extra servers, e.g. a replica to
     * promote) and returns one line that says what runs where, for the progress output.
     */
    abstract String start(Set<FaultKind> faults);

    /** Returns how the worker in {@code slot} builds its lock client. */
    abstract WorkerClient workerClient(int slot);

    /**
     * Injects one of this deployment's server faults, waits until the deployment has healed, and
     * returns what was done, for the report.
     *
     * @throws IllegalArgumentException for a fault it does not have
     */
    String injectServerFault(FaultKind kind) throws InterruptedException {
        throw new IllegalArgumentException(getClass().getSimpleName() + " has no fault " + kind.id());
    }

    /** Returns the proxy between the client in {@code slot} and the servers, for partitions; empty if none. */
    Optional<TcpProxy> clientLink(int slot) {
        return Optional.empty();
    }

    /** Returns how long a frozen client takes to lose its session, for expire faults. */
    Duration sessionTimeout() {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " has no sessions");
    }

    /**
     * Returns the faults after which this deployment does not promise that held locks survive (see
     * docs/guarantees.md): Redis restarted without persistence, a failover to a replica that need not have
     * the last writes. The checker allows an overlap, or a waiter overtaken, across one of these; across any
     * other fault it is a violation.
     */
    Set<FaultKind> lockLosingFaults() {
        return Set.of();
    }

    /**
     * Returns the faults that may send waiters to the back of the queue while every holder keeps or knowingly loses
     * its lock (see docs/guarantees.md): the checker allows a waiter overtaken across one of these, not an overlap.
     */
    Set<FaultKind> requeueFaults() {
        return Set.of();
    }

    /** Returns the operation timeout of the workers' clients: a call (a queue join) not answered within it fails. */
    Duration operationTimeout() {
        return DEFAULT_OPERATION_TIMEOUT;
    }

    /** Returns whether {@code lock} can run here: distlock can everywhere, the textbook locks need plain Redis. */
    boolean supports(CheckedLock lock) {
        return lock == CheckedLock.DISTLOCK;
    }

    /** Stops every server of the deployment. */
    @Override
    public abstract void close();
}
