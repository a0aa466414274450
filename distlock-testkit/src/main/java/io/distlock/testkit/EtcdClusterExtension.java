package io.distlock.testkit;

import io.distlock.servers.BackendControl;
import io.distlock.servers.EtcdBinary;
import io.distlock.servers.EtcdCluster;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Assumptions;

/**
 * Real etcd servers for a test class: one member, or a cluster ({@link #cluster(int)}); the target is the
 * comma-separated client URLs. etcd is the one server not on Maven Central: without an {@code etcd}
 * binary (Debian's etcd-server) the class is skipped, with one loud line saying how to enable it.
 */
public final class EtcdClusterExtension extends DeploymentExtension<EtcdCluster> {
    private static final AtomicBoolean warned = new AtomicBoolean();
    private final int size;
    private final boolean leaseCheckpoints;

    /** One etcd server. */
    public EtcdClusterExtension() {
        this(1, false);
    }

    private EtcdClusterExtension(int size, boolean leaseCheckpoints) {
        this.size = size;
        this.leaseCheckpoints = leaseCheckpoints;
    }

    /** A cluster of {@code size} members, with lease checkpointing off (etcd 3.4's default). */
    public static EtcdClusterExtension cluster(int size) {
        return new EtcdClusterExtension(size, false);
    }

    @Override
    protected EtcdCluster launch() {
        if (!EtcdBinary.available()) {
            if (warned.compareAndSet(false, true)) {
                System.err.println("[distlock] ETCD TESTS SKIPPED: no etcd binary found; " + EtcdBinary.HOW_TO_INSTALL);
            }
            Assumptions.abort("no etcd binary: " + EtcdBinary.HOW_TO_INSTALL);
        }
        return EtcdCluster.launch(size, leaseCheckpoints);
    }

    @Override
    protected void shutDown(EtcdCluster running) {
        running.close();
    }

    /** Returns the running cluster. */
    public EtcdCluster cluster() {
        return servers();
    }

    @Override
    public String target() {
        return cluster().endpoints();
    }

    @Override
    public BackendControl control() {
        return cluster().control();
    }
}
