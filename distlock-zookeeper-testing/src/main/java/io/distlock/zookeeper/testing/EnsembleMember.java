package io.distlock.zookeeper.testing;

import io.distlock.servers.FreePorts;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.security.sasl.SaslException;
import org.apache.zookeeper.server.quorum.QuorumPeer;
import org.apache.zookeeper.server.quorum.QuorumPeerConfig;
import org.apache.zookeeper.server.quorum.QuorumPeerMain;
import org.jspecify.annotations.Nullable;

/**
 * One member of a {@link ZooKeeperEnsemble}: ZooKeeper's quorum peer, run on a thread of this JVM, with
 * its own ports and data directory, which survive a kill and restart.
 */
final class EnsembleMember {
    private final int id;
    private final int clientPort;
    private final int quorumPort;
    private final int electionPort;
    private final Path dataDir;
    private @Nullable Run run;
    private long exitRequestsAtStart;

    EnsembleMember(int id) {
        this.id = id;
        this.clientPort = FreePorts.next();
        this.quorumPort = FreePorts.next();
        this.electionPort = FreePorts.next();
        try {
            this.dataDir = Files.createTempDirectory("distlock-zookeeper-" + id + "-");
            Files.writeString(dataDir.resolve("myid"), Integer.toString(id));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a data directory for ZooKeeper member " + id, e);
        }
    }

    int clientPort() {
        return clientPort;
    }

    /** Returns this member's line of the ensemble configuration, e.g. {@code server.1=127.0.0.1:q:e}. */
    Map.Entry<String, String> serverLine() {
        return Map.entry("server." + id, "127.0.0.1:" + quorumPort + ":" + electionPort);
    }

    /** Starts the peer with the ensemble's server lines; returns at once (it joins the quorum later). */
    void start(Map<String, String> serverLines) {
        if (run != null) {
            throw new IllegalStateException("ZooKeeper member " + id + " is already running");
        }
        // initLimit and syncLimit in ticks, as Curator's test cluster uses them
        Map<String, String> extra = new java.util.HashMap<>(serverLines);
        extra.put("initLimit", "10");
        extra.put("syncLimit", "5");
        exitRequestsAtStart = ZooKeeperExits.requests();
        run = new Run(ZooKeeperConfig.of(dataDir, clientPort, extra), id);
    }

    /** Returns whether the peer serves clients now (it is in a quorum, as leader or follower). */
    boolean isServing() {
        return run != null && ZooKeeperStatus.mode(clientPort).isPresent();
    }

    /**
     * Returns why the peer failed, if it did: its thread ended with an error, or ZooKeeper asked to exit the JVM
     * since it started (a port it could not bind; the request may also have come from another member started
     * at the same time, which fails the ensemble's start as a whole just the same).
     */
    @Nullable Throwable failure() {
        Run current = run;
        if (current == null) {
            return null;
        }
        if (current.failure != null) {
            return current.failure;
        }
        if (ZooKeeperExits.requests() > exitRequestsAtStart) {
            return new IllegalStateException("ZooKeeper asked to exit the JVM with code " + ZooKeeperExits.lastCode()
                    + (ZooKeeperExits.lastCode() == 14 ? " (a quorum or election port could not be bound)" : ""));
        }
        return null;
    }

    /** Shuts the peer down (its connections and quorum links drop) and waits until it is gone; keeps its data. */
    void kill() {
        if (run != null) {
            run.shutDown();
            run = null;
        }
    }

    /** Kills the peer and deletes its data. */
    void close() {
        kill();
        ZooKeeperConfig.deleteQuietly(dataDir);
    }

    @Override
    public String toString() {
        return "member " + id + " (127.0.0.1:" + clientPort + ")";
    }

    /** One run of ZooKeeper's quorum peer main, on its own thread. */
    private static final class Run extends QuorumPeerMain {
        private final Thread thread;
        private volatile @Nullable QuorumPeer peer;
        private volatile boolean stopping;
        private volatile @Nullable Throwable failure;

        Run(QuorumPeerConfig config, int id) {
            thread = new Thread(() -> {
                try {
                    runFromConfig(config);
                } catch (Throwable e) {
                    failure = e;
                }
            }, "zookeeper-member-" + id);
            thread.setDaemon(true);
            thread.start();
        }

        @Override
        protected QuorumPeer getQuorumPeer() throws SaslException {
            QuorumPeer created = super.getQuorumPeer();
            peer = created;
            if (stopping) {
                created.shutdown();
            }
            return created;
        }

        /**
         * Shuts the peer down and waits up to 30 s for its thread to end. A peer caught while runFromConfig is still
         * setting it up (made, but without its database yet) throws from shutdown(); it is asked again until its
         * thread ends (a build's test saw "zkDb is null" when a member was closed right after it started).
         */
        void shutDown() {
            stopping = true;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            boolean shutDown = false;
            try {
                do {
                    QuorumPeer current = peer;
                    if (current != null && !shutDown) {
                        try {
                            current.shutdown();
                            shutDown = true;
                        } catch (RuntimeException stillStarting) {
                            // not built far enough to shut down: ask again once it is
                        }
                    }
                    thread.join(100);
                } while (thread.isAlive() && System.nanoTime() - deadline < 0);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
