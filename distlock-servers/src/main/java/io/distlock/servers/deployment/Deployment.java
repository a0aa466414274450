package io.distlock.servers.deployment;

import io.distlock.checker.FaultKind;
import io.distlock.servers.TcpProxy;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * One deployment the checker can build and fault ({@code distlock check --backend ID}): its servers, the faults it
 * supports and how it injects those that hit its servers, and where each worker process connects. A backend's
 * {@code -testing} module implements it and names it in a {@link DeploymentProvider}; workers open their clients
 * through the registry ({@link WorkerClient}), so nothing here names a backend class.
 */
public abstract class Deployment implements AutoCloseable {
    /*
     * Life cycle: constructed with the run's settings (cheap: the command asks faultKinds() before any
     * server runs), then start(), then workerClient() for every worker and injectServerFault() from the
     * coordinator's thread, one fault at a time, then close(). Client faults (pause, kill, partition,
     * expire) are the same on every deployment and live in CheckRun; a deployment only supplies what
     * they need from it: a per-client link to cut (clientLink) and its session timeout (sessionTimeout).
     * The store that the workload writes to is not part of the deployment: it is never faulted.
     */

    /** The name every worker locks (of whichever kind), so that a deployment can aim a fault at where it lives. */
    public static final String LOCK_NAME = "check";

    /** The operation timeout of the workers' clients unless a deployment needs another. */
    public static final Duration DEFAULT_OPERATION_TIMEOUT = Duration.ofSeconds(1);

    /** The settings of this run. */
    protected final DeploymentSettings settings;

    protected Deployment(DeploymentSettings settings) {
        this.settings = settings;
    }

    /** Returns the faults this deployment supports, client and server ones, in the order of the first round. */
    public abstract List<FaultKind> faultKinds();

    /**
     * Starts the servers for a run with these faults (some need extra servers, e.g. a replica to
     * promote) and returns one line that says what runs where, for the progress output.
     */
    public abstract String start(Set<FaultKind> faults);

    /** Returns where the worker in {@code slot} connects, and how its client is set up. */
    public abstract WorkerClient workerClient(int slot);

    /**
     * Injects one of this deployment's server faults, waits until the deployment has healed, and
     * returns what was done, for the report.
     *
     * @throws IllegalArgumentException for a fault it does not have
     */
    public String injectServerFault(FaultKind kind) throws InterruptedException {
        throw new IllegalArgumentException(getClass().getSimpleName() + " has no fault " + kind.id());
    }

    /** Returns the proxy between the client in {@code slot} and the servers, for partitions; empty if none. */
    public Optional<TcpProxy> clientLink(int slot) {
        return Optional.empty();
    }

    /** Returns how long a frozen client takes to lose its session, for expire faults. */
    public Duration sessionTimeout() {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " has no sessions");
    }

    /**
     * Returns the faults after which this deployment does not promise that held locks survive (see
     * docs/guarantees.md): Redis restarted without persistence, a failover to a replica that need not have
     * the last writes. The checker allows an overlap, or a waiter overtaken, across one of these; across any
     * other fault it is a violation.
     */
    public Set<FaultKind> lockLosingFaults() {
        return Set.of();
    }

    /**
     * Returns the faults that may send waiters to the back of the queue while every holder keeps or knowingly loses
     * its lock (see docs/guarantees.md): the checker allows a waiter overtaken across one of these, not an overlap.
     */
    public Set<FaultKind> requeueFaults() {
        return Set.of();
    }

    /** Returns the operation timeout of the workers' clients: a call (a queue join) not answered within it fails. */
    public Duration operationTimeout() {
        return DEFAULT_OPERATION_TIMEOUT;
    }

    /** Returns whether the textbook locks the checker compares (SET NX and its kin) run here: on plain Redis only. */
    public boolean runsTextbookLocks() {
        return false;
    }

    /**
     * Returns {@code part} of the running deployment (a server, a cluster), failing with one message for every
     * deployment if {@link #start} has not made it.
     */
    protected final <T> T started(@Nullable T part) {
        if (part == null) {
            throw new IllegalStateException(getClass().getSimpleName() + " is not started (or lacks the server this fault needs)");
        }
        return part;
    }

    /** Stops every server of the deployment. */
    @Override
    public abstract void close();
}
