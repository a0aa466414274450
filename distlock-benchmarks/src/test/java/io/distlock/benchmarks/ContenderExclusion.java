package io.distlock.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.cli.bench.Contender;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/** Checks that a contender is a lock across the threads of one client, so that its contended numbers mean something. */
final class ContenderExclusion {
    private ContenderExclusion() {}

    /** Runs 4 threads x 25 cycles on one name through {@code contender} and asserts no two were ever inside at once. */
    static void assertExcludesItsThreads(Contender contender) throws InterruptedException {
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        AtomicInteger cycles = new AtomicInteger();
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
                        Thread.sleep(1); // widens the window an overlap would need; the assertion does not depend on it
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
        assertThat(cycles).hasValue(100);
        assertThat(overlaps).as("two threads of %s inside the lock at once", contender.id()).hasValue(0);
    }
}
