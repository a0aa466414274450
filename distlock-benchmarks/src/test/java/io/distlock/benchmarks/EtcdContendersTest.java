package io.distlock.benchmarks;

import io.distlock.cli.bench.Contender;
import io.distlock.etcd.testing.EtcdBinary;
import io.distlock.etcd.testing.EtcdCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The etcd contenders are locks across the threads of one client (so their c16 numbers mean something). */
class EtcdContendersTest {
    private static EtcdCluster etcd;

    @BeforeAll
    static void start() {
        Assumptions.assumeTrue(EtcdBinary.availableForTests(), "no etcd binary: " + EtcdBinary.HOW_TO_INSTALL);
        etcd = EtcdCluster.launch();
    }

    @AfterAll
    static void stop() {
        if (etcd != null) {
            etcd.close();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"distlock-etcd", "jetcd-lock"})
    void eachExcludesTheOtherThreadsOfItsClient(String id) throws Exception {
        try (Contender contender = Contenders.create(id, new Contenders.Targets(null, null, etcd.endpoints()))) {
            ContenderExclusion.assertExcludesItsThreads(contender);
        }
    }
}
