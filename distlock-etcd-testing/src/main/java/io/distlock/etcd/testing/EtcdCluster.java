package io.distlock.etcd.testing;

import io.distlock.servers.Await;
import io.distlock.servers.BackendControl;
import io.distlock.servers.GuardedProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * Real etcd servers on free loopback ports: one member, or a cluster of several, each an {@code etcd}
 * process ({@link EtcdBinary}) that dies with this JVM. Data lives under {@code /dev/shm} when there is
 * one (etcd 3.4 has no {@code --unsafe-no-fsync}; memory makes its fsyncs cheap), so it survives a
 * member's restart but not the machine's.
 */
public final class EtcdCluster implements AutoCloseable {
    private static final Duration HEALTHY_TIMEOUT = Duration.ofSeconds(60);
    private static final Set<EtcdCluster> RUNNING = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> RUNNING.forEach(EtcdCluster::close), "etcd-cleanup"));
    }

    private final Path dir;
    private final List<EtcdMember> members;

    private EtcdCluster(Path dir, List<EtcdMember> members) {
        this.dir = dir;
        this.members = List.copyOf(members);
    }

    /** Starts one etcd server; see {@link #launch(int, boolean)}. */
    public static EtcdCluster launch() {
        return launch(1, false);
    }

    /**
     * Starts a cluster of {@code size} members and waits until every member serves and one leads.
     *
     * @param leaseCheckpoints whether the members persist lease TTLs across leader changes
     *     ({@code --experimental-enable-lease-checkpoint}; off by default in etcd 3.4, so that a new leader
     *     gives every lease its full TTL again)
     * @throws IllegalStateException if etcd is not installed (saying how to install it) or the cluster does
     *     not form within a minute (with the members' logs)
     */
    public static EtcdCluster launch(int size, boolean leaseCheckpoints) {
        return launch(size, leaseCheckpoints, List.of());
    }

    /**
     * Starts a cluster as {@link #launch(int, boolean)} does, each member given {@code flags} after the usual ones (a
     * test of a server limit, such as {@code --max-txn-ops}).
     */
    public static EtcdCluster launch(int size, boolean leaseCheckpoints, List<String> flags) {
        if (size < 1) {
            throw new IllegalArgumentException("a cluster needs at least one member, was " + size);
        }
        EtcdBinary.path();
        IllegalStateException last = null;
        for (int attempt = 0; attempt < 3; attempt++) {
            EtcdCluster cluster = create(size, leaseCheckpoints, flags);
            try {
                cluster.members.forEach(EtcdMember::spawn);
                cluster.members.forEach(EtcdMember::awaitServing);
                cluster.awaitLeader();
                return cluster;
            } catch (IllegalStateException | AssertionError e) {
                last = new IllegalStateException("cannot start an etcd cluster of " + size + " (a port taken between probe and bind?): "
                        + e.getMessage(), e);
                cluster.close();
            }
        }
        throw last;
    }

    private static EtcdCluster create(int size, boolean leaseCheckpoints, List<String> flags) {
        Path dir;
        try {
            Path shm = Path.of("/dev/shm");
            dir = Files.isDirectory(shm) && Files.isWritable(shm)
                    ? Files.createTempDirectory(shm, "distlock-etcd-") : Files.createTempDirectory("distlock-etcd-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a data directory for etcd", e);
        }
        List<EtcdMember> members = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            members.add(new EtcdMember("m" + i, dir.resolve("m" + i), leaseCheckpoints, flags));
        }
        String initialCluster = members.stream().map(m -> m.name() + "=" + m.peerUrl()).collect(Collectors.joining(","));
        String token = "distlock-" + UUID.randomUUID();
        members.forEach(member -> member.configure(initialCluster, token));
        EtcdCluster cluster = new EtcdCluster(dir, members);
        RUNNING.add(cluster);
        return cluster;
    }

    /** Returns the cluster as the backend registry opens it: {@code etcd://127.0.0.1:p1,127.0.0.1:p2,...}. */
    public String registryTarget() {
        return "etcd://" + endpoints().replace("http://", "");
    }

    /** Returns the client URLs of all members, comma-separated ({@code http://127.0.0.1:p1,http://...}). */
    public String endpoints() {
        return members.stream().map(EtcdMember::endpoint).collect(Collectors.joining(","));
    }

    /** Returns the number of members. */
    public int size() {
        return members.size();
    }

    /** Returns member {@code index} (0-based), for faults on one member. */
    public EtcdMember member(int index) {
        return members.get(index);
    }

    /** Returns the members. */
    public List<EtcdMember> members() {
        return members;
    }

    /**
     * Returns how many request messages the members have received from clients, summed ({@link EtcdMember#requestsReceived()}).
     *
     * @throws IllegalStateException if a member does not answer
     */
    public long requestsReceived() {
        return members.stream().mapToLong(EtcdMember::requestsReceived).sum();
    }

    /**
     * Waits until a running member leads and returns its index.
     *
     * @throws AssertionError if no member leads within a minute
     */
    public int awaitLeader() {
        int[] leader = {-1};
        Await.until(HEALTHY_TIMEOUT, "an etcd member leads " + this, () -> {
            for (int i = 0; i < members.size(); i++) {
                if (members.get(i).isLeader()) {
                    leader[0] = i;
                    return true;
                }
            }
            return false;
        });
        return leader[0];
    }

    /** Returns fault injection on the whole cluster (every member at once; start waits for a leader). */
    public BackendControl control() {
        if (members.size() == 1) {
            return members.get(0);
        }
        return new BackendControl() {
            @Override
            public void stop() {
                members.forEach(EtcdMember::stop);
            }

            @Override
            public void kill() {
                members.forEach(EtcdMember::kill);
            }

            @Override
            public void start() {
                startAll();
            }

            @Override
            public void pause() {
                members.forEach(EtcdMember::pause);
            }

            @Override
            public void resume() {
                members.forEach(EtcdMember::resume);
            }
        };
    }

    /** Starts every stopped member again without waiting for each alone (they need each other for a quorum). */
    public void startAll() {
        members.stream().filter(member -> !member.isRunning()).forEach(EtcdMember::spawn);
        members.forEach(EtcdMember::awaitServing);
        awaitLeader();
    }

    /** Kills every member and deletes their data. */
    @Override
    public void close() {
        RUNNING.remove(this);
        members.forEach(EtcdMember::close);
        GuardedProcess.run("rm", "-rf", dir.toString());
    }

    @Override
    public String toString() {
        return "EtcdCluster[" + endpoints() + "]";
    }
}
