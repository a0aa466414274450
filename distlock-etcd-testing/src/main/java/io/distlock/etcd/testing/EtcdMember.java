package io.distlock.etcd.testing;

import io.distlock.servers.BackendControl;
import io.distlock.servers.FreePorts;
import io.distlock.servers.GuardedProcess;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * One etcd process of an {@link EtcdCluster}, on its own client and peer ports and data directory.
 * Stopping or killing it keeps its data: the next {@link #start()} rejoins the cluster.
 */
public final class EtcdMember implements BackendControl {
    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

    private final ReentrantLock lock = new ReentrantLock();
    private final String name;
    private final int clientPort;
    private final int peerPort;
    private final Path dir;
    private final boolean leaseCheckpoints;
    private final List<String> flags;
    private @Nullable String initialCluster;
    private @Nullable String clusterToken;
    private volatile @Nullable GuardedProcess process;
    private int logBefore;

    EtcdMember(String name, Path dir, boolean leaseCheckpoints, List<String> flags) {
        this.flags = List.copyOf(flags);
        this.name = name;
        this.clientPort = FreePorts.next();
        this.peerPort = FreePorts.next();
        this.dir = dir;
        this.leaseCheckpoints = leaseCheckpoints;
    }

    /** Returns the member's name in the cluster ({@code m0}, {@code m1}, ...). */
    public String name() {
        return name;
    }

    /** Returns the port clients connect to. */
    public int clientPort() {
        return clientPort;
    }

    /** Returns the member's client URL, {@code http://127.0.0.1:<port>}. */
    public String endpoint() {
        return "http://127.0.0.1:" + clientPort;
    }

    String peerUrl() {
        return "http://127.0.0.1:" + peerPort;
    }

    void configure(String initialCluster, String clusterToken) {
        this.initialCluster = initialCluster;
        this.clusterToken = clusterToken;
    }

    /** Returns whether the process is running (it may be paused). */
    public boolean isRunning() {
        GuardedProcess current = process;
        return current != null && current.isAlive();
    }

    /** Starts the process without waiting for it to serve (a new cluster's members wait for each other). */
    void spawn() {
        lock.lock();
        try {
            if (isRunning()) {
                throw new IllegalStateException("etcd " + name + " on port " + clientPort + " is already running");
            }
            Files.createDirectories(dir);
            List<String> command = new java.util.ArrayList<>(List.of(EtcdBinary.path().toString(),
                    "--name", name, "--data-dir", dir.resolve("data").toString(),
                    "--listen-client-urls", endpoint(), "--advertise-client-urls", endpoint(),
                    "--listen-peer-urls", peerUrl(), "--initial-advertise-peer-urls", peerUrl(),
                    "--initial-cluster", java.util.Objects.requireNonNull(initialCluster),
                    "--initial-cluster-token", java.util.Objects.requireNonNull(clusterToken),
                    "--initial-cluster-state", "new",
                    // short ticks: a lost leader is replaced in about a second, as a test needs
                    "--heartbeat-interval", "50", "--election-timeout", "500",
                    "--logger", "zap", "--log-outputs", "stderr", "--enable-v2=false"));
            if (leaseCheckpoints) {
                command.add("--experimental-enable-lease-checkpoint");
            }
            command.addAll(flags);
            logBefore = GuardedProcess.logLength(log());
            process = GuardedProcess.start(command, log());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + dir, e);
        } finally {
            lock.unlock();
        }
    }

    /** Waits until the member serves clients (it has joined a cluster with a quorum). */
    void awaitServing() {
        GuardedProcess current = process;
        if (current == null) {
            throw new IllegalStateException("etcd " + name + " was not started");
        }
        // etcd logs this once it has published itself through raft, which needs a quorum
        current.awaitReady(logBefore, "serving client traffic", clientPort, START_TIMEOUT, "etcd " + name);
    }

    /** Starts the member again (its data kept) and waits until it serves: a cluster needs a quorum for that. */
    @Override
    public void start() {
        spawn();
        awaitServing();
    }

    /** Stops the member gracefully (SIGTERM; a leader hands its leadership on first) and waits for it. */
    @Override
    public void stop() {
        lock.lock();
        try {
            GuardedProcess current = process;
            if (current != null && current.isAlive()) {
                current.signalAll("CONT");
                current.signalAll("TERM");
                current.awaitExit();
            }
        } finally {
            lock.unlock();
        }
    }

    /** Kills the member (SIGKILL); its data stays for the next start. */
    @Override
    public void kill() {
        GuardedProcess current = process;
        if (current != null) {
            current.kill();
        }
    }

    /** Freezes the member (SIGSTOP): connections stay open, nothing is answered, its peers elect without it. */
    @Override
    public void pause() {
        GuardedProcess current = process;
        if (current != null) {
            current.signalAll("STOP");
        }
    }

    @Override
    public void resume() {
        GuardedProcess current = process;
        if (current != null) {
            current.signalAll("CONT");
        }
    }

    /**
     * Returns whether this member is the cluster's leader now, read from its metrics; false if it does not
     * answer within half a second (stopped, paused).
     */
    public boolean isLeader() {
        return metric("etcd_server_is_leader").equals("1");
    }

    /** Returns whether this member knows a leader now (false if it does not answer). */
    public boolean hasLeader() {
        return metric("etcd_server_has_leader").equals("1");
    }

    /**
     * Returns how many request messages this member has received from clients since it started, from its own
     * metrics: {@code grpc_server_msg_received_total} summed over every gRPC method, so every unary call (Range,
     * Txn, Put, a keep-alive sent once) and every message on a stream (a watch created) counts. Lets a test count
     * the calls clients make.
     *
     * @throws IllegalStateException if the member does not answer
     */
    public long requestsReceived() {
        String prefix = "grpc_server_msg_received_total{";
        String text = metrics().orElseThrow(() -> new IllegalStateException(this + " did not answer /metrics"));
        return text.lines().filter(line -> line.startsWith(prefix))
                .mapToLong(line -> (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1).trim())).sum();
    }

    private String metric(String metric) {
        return metrics().flatMap(text -> text.lines().filter(line -> line.startsWith(metric + " "))
                .map(line -> line.substring(metric.length() + 1).trim()).findFirst()).orElse("");
    }

    /** Returns the member's Prometheus metrics, or empty if it does not answer within half a second (stopped, paused). */
    private Optional<String> metrics() {
        if (!isRunning()) {
            return Optional.empty();
        }
        try {
            HttpURLConnection connection = (HttpURLConnection) URI.create(endpoint() + "/metrics").toURL().openConnection();
            connection.setConnectTimeout(500);
            connection.setReadTimeout(500);
            try (InputStream in = connection.getInputStream()) {
                return Optional.of(new String(in.readAllBytes(), StandardCharsets.UTF_8));
            } finally {
                connection.disconnect();
            }
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** Returns the member's log so far, for failure messages. */
    public String logText() {
        return GuardedProcess.readLog(log());
    }

    private Path log() {
        return dir.resolve("etcd.log");
    }

    /** Kills the member; the cluster deletes the directories. */
    void close() {
        kill();
    }

    @Override
    public String toString() {
        return "etcd " + name + " (" + endpoint() + ")";
    }
}
