package io.distlock.etcd.testing;

import io.distlock.etcd.testing.EtcdBinary;
import io.distlock.etcd.testing.EtcdCluster;
import io.distlock.servers.BackendControl;
import io.distlock.testkit.DeploymentExtension;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Real etcd servers for a test class: one member, or a cluster ({@link #cluster(int)}); the target is the
 * comma-separated client URLs. etcd is the one server not on Maven Central: without an {@code etcd}
 * binary (Debian's etcd-server) every test of the class is reported skipped, each saying how to install it,
 * unless the etcd tests are required ({@link EtcdBinary#required()}: CI), when the class fails instead.
 */
public final class EtcdClusterExtension extends DeploymentExtension<EtcdCluster> implements ExecutionCondition {
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

    /**
     * Disables the class when there is no etcd binary, so that the report counts each of its tests as skipped,
     * with the reason (an abort before the first test counted nothing: "0 run, 0 skipped"); fails the class
     * instead when the etcd tests are required.
     */
    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        if (EtcdBinary.availableForTests()) {
            return ConditionEvaluationResult.enabled("an etcd binary is installed");
        }
        return ConditionEvaluationResult.disabled("ETCD TESTS SKIPPED: no etcd binary found; " + EtcdBinary.HOW_TO_INSTALL);
    }

    @Override
    protected EtcdCluster launch() {
        return EtcdCluster.launch(size, leaseCheckpoints); // only for a class the condition enabled
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
