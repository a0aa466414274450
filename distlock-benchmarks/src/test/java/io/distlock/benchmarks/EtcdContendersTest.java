package io.distlock.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.cli.bench.Contender;
import io.distlock.servers.EtcdBinary;
import io.distlock.servers.EtcdCluster;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
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
        Assumptions.assumeTrue(EtcdBinary.available(), "no etcd binary: " + EtcdBinary.HOW_TO_INSTALL);
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
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        AtomicInteger cycles = new AtomicInteger();
        try (Contender contender = Contenders.create(id, new Contenders.Targets(null, null, etcd.endpoints()))) {
            List<Thread> threads = new ArrayList<>();
            List<Throwable> failures = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                Thread thread = new Thread(() -> {
                    try {
                        for (int i = 0; i < 25; i++) {
                            contender.lock("shared");
                            if (inside.incrementAndGet() > 1) {
                                overlaps.incrementAndGet();
                            }
                            Thread.sleep(1);
                            inside.decrementAndGet();
                            contender.unlock("shared");
                            cycles.incrementAndGet();
                        }
                    } catch (Throwable e) {
                        synchronized (failures) {
                            failures.add(e);
                        }
                    }
                });
                threads.add(thread);
                thread.start();
            }
            for (Thread thread : threads) {
                thread.join(60_000);
            }
            assertThat(failures).isEmpty();
        }
        assertThat(cycles).hasValue(100);
        assertThat(overlaps).as("two threads inside the lock at once").hasValue(0);
    }
}
