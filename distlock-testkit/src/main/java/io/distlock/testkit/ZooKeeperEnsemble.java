package io.distlock.testkit;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.apache.zookeeper.ZooKeeper;

/** An in-process ZooKeeper ensemble (Curator's TestingCluster) whose members can be killed and restarted. */
public final class ZooKeeperEnsemble implements AutoCloseable {
    private final TestingCluster cluster;
    private final List<InstanceSpec> members;

    private ZooKeeperEnsemble(TestingCluster cluster) {
        this.cluster = cluster;
        this.members = new ArrayList<>(cluster.getInstances());
    }

    /** Starts an ensemble of {@code size} members on free ports. */
    public static ZooKeeperEnsemble launch(int size) {
        List<InstanceSpec> specs = new ArrayList<>();
        for (int i = 1; i <= size; i++) {
            specs.add(new InstanceSpec(null, FreePorts.next(), FreePorts.next(), FreePorts.next(), true, i,
                    ZooKeeperServer.TICK_MILLIS, -1, java.util.Map.of("admin.enableServer", "false")));
        }
        TestingCluster cluster = new TestingCluster(specs);
        try {
            cluster.start();
        } catch (Exception e) {
            throw new IllegalStateException("cannot start a ZooKeeper ensemble of " + size, e);
        }
        return new ZooKeeperEnsemble(cluster);
    }

    /** Returns the connect string of all members. */
    public String connectString() {
        return cluster.getConnectString();
    }

    /** Kills member {@code index} (0-based). */
    public void kill(int index) {
        try {
            cluster.killServer(members.get(index));
        } catch (Exception e) {
            throw new IllegalStateException("cannot kill ensemble member " + index, e);
        }
    }

    /** Restarts member {@code index} (0-based) after {@link #kill(int)}. */
    public void restart(int index) {
        try {
            cluster.restartServer(members.get(index));
        } catch (Exception e) {
            throw new IllegalStateException("cannot restart ensemble member " + index, e);
        }
    }

    /** Returns the number of members. */
    public int size() {
        return members.size();
    }

    @Override
    public void close() {
        try {
            cluster.close();
        } catch (IOException ignored) {
            // best effort at the end of a test class
        }
    }

    /** Expires a client's session as the server would (the client sees Expired and starts over). */
    public static void expireSession(ZooKeeper client) {
        client.getTestable().injectSessionExpiration();
    }
}
