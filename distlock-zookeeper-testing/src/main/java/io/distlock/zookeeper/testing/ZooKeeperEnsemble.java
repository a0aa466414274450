package io.distlock.zookeeper.testing;

import io.distlock.servers.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;
import java.util.stream.Collectors;
import org.apache.zookeeper.ZooKeeper;

/**
 * A real ZooKeeper ensemble run in this JVM: every member is ZooKeeper's own quorum peer on free
 * loopback ports, with the short tick of {@link ZooKeeperServer}. Members can be killed and restarted;
 * a restarted member keeps its data and rejoins the quorum.
 */
public final class ZooKeeperEnsemble implements AutoCloseable {
    private static final Duration QUORUM_TIMEOUT = Duration.ofSeconds(60);

    private final ReentrantLock lock = new ReentrantLock();
    private final List<EnsembleMember> members;
    /** Each member's server.N line, then the extra settings: what every member starts with. */
    private final Map<String, String> serverLines = new LinkedHashMap<>();

    private ZooKeeperEnsemble(List<EnsembleMember> members, Map<String, String> settings) {
        this.members = List.copyOf(members);
        members.forEach(member -> serverLines.put(member.serverLine().getKey(), member.serverLine().getValue()));
        serverLines.putAll(settings);
    }

    /**
     * Starts an ensemble of {@code size} members on free ports and waits until every member serves; tries new
     * ports up to three times, since a port found free can be taken before a member binds it.
     *
     * @throws IllegalStateException if they do not form a quorum within a minute, three times
     */
    public static ZooKeeperEnsemble launch(int size) {
        return launch(size, Map.of());
    }

    /**
     * Starts an ensemble as {@link #launch(int)} does, every member with {@code settings}, zoo.cfg lines on top of the
     * test defaults (such as {@code localSessionsEnabled=true}); they stay for every restart.
     *
     * @throws IllegalStateException if they do not form a quorum within a minute, three times
     */
    public static ZooKeeperEnsemble launch(int size, Map<String, String> settings) {
        if (size < 1) {
            throw new IllegalArgumentException("an ensemble needs at least one member, was " + size);
        }
        IllegalStateException last = null;
        for (int attempt = 0; attempt < 3; attempt++) {
            try {
                return launchOnce(size, settings);
            } catch (IllegalStateException e) {
                last = e;
            }
        }
        throw last;
    }

    private static ZooKeeperEnsemble launchOnce(int size, Map<String, String> settings) {
        List<EnsembleMember> members = new ArrayList<>();
        for (int id = 1; id <= size; id++) {
            members.add(new EnsembleMember(id));
        }
        ZooKeeperEnsemble ensemble = new ZooKeeperEnsemble(members, settings);
        try {
            members.forEach(member -> member.start(ensemble.serverLines));
            for (EnsembleMember member : members) {
                ensemble.awaitServing(member);
            }
            return ensemble;
        } catch (RuntimeException | AssertionError e) {
            ensemble.close();
            throw new IllegalStateException("cannot start a ZooKeeper ensemble of " + size, e);
        }
    }

    /** Returns the connect string of all members. */
    public String connectString() {
        return members.stream().map(m -> "127.0.0.1:" + m.clientPort()).collect(Collectors.joining(","));
    }

    /** Returns the number of members. */
    public int size() {
        return members.size();
    }

    /** Returns the index (0-based) of the member serving clients on {@code clientPort}, or -1. */
    public int memberOnPort(int clientPort) {
        for (int i = 0; i < members.size(); i++) {
            if (members.get(i).clientPort() == clientPort) {
                return i;
            }
        }
        return -1;
    }

    /** Returns whether member {@code index} (0-based) serves clients now, i.e. is part of a working quorum. */
    public boolean isServing(int index) {
        return members.get(index).isServing();
    }

    /** Kills member {@code index} (0-based): its connections and quorum links drop; its data stays. */
    public void kill(int index) {
        lock.lock();
        try {
            members.get(index).kill();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Starts member {@code index} (0-based) again after {@link #kill(int)} and waits until it serves
     * (it has rejoined the quorum and caught up).
     *
     * @throws IllegalStateException if it is running, or has not rejoined within a minute
     */
    public void restart(int index) {
        lock.lock();
        try {
            EnsembleMember member = members.get(index);
            member.start(serverLines);
            awaitServing(member);
        } finally {
            lock.unlock();
        }
    }

    private void awaitServing(EnsembleMember member) {
        Await.until(QUORUM_TIMEOUT, "ZooKeeper " + member + " serves", () -> {
            Throwable failure = member.failure();
            if (failure != null) {
                throw new IllegalStateException("ZooKeeper " + member + " failed", failure);
            }
            return member.isServing();
        });
    }

    /** Kills every member and deletes their data. */
    @Override
    public void close() {
        lock.lock();
        try {
            members.forEach(EnsembleMember::close);
        } finally {
            lock.unlock();
        }
    }

    /** Expires a client's session as the server would (the client sees Expired and starts over). */
    public static void expireSession(ZooKeeper client) {
        client.getTestable().injectSessionExpiration();
    }

    @Override
    public String toString() {
        return "ZooKeeperEnsemble[" + connectString() + "]";
    }
}
