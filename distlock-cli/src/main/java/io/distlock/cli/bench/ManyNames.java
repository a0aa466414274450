package io.distlock.cli.bench;

import io.distlock.DistributedLock;
import io.distlock.LockClient;
import io.distlock.LockClients;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * Scenario names300k: lock and unlock 300,000 distinct names (or {@code --names}; one per order, as applications do) with
 * 16 threads, and measure what the client keeps on the heap afterwards. Per-name state must go when a
 * name is no longer used; this is the figure behind that claim.
 */
final class ManyNames {
    private static final int THREADS = 16;

    private ManyNames() {}

    /** What a run measured. */
    record Result(String backend, int names, double seconds, long heapGrowthBytes) {
        static String header() {
            return String.format(Locale.ROOT, "%-16s %-10s %10s %10s %12s %16s", "scenario", "backend", "names", "seconds", "names/s",
                    "heap growth KiB");
        }

        String row() {
            return String.format(Locale.ROOT, "%-16s %-10s %10d %10.1f %12.0f %16d", "names300k", backend, names, seconds, names / seconds,
                    heapGrowthBytes / 1024);
        }
    }

    static Result run(String backend, String uri, int names, PrintStream progress) throws Exception {
        try (LockClient client = LockClients.open(uri)) {
            cycle(client, "warm", 10_000, null); // classes loaded, pools and connections sized
            long before = settledHeap();
            long start = System.nanoTime();
            cycle(client, "order", names, progress);
            double seconds = (System.nanoTime() - start) / 1e9;
            return new Result(backend, names, seconds, settledHeap() - before);
        }
    }

    /** Locks and unlocks {@code names} names; with {@code progress}, prints how far it got every 5 seconds. */
    private static void cycle(LockClient client, String prefix, int names, @Nullable PrintStream progress) throws Exception {
        AtomicInteger next = new AtomicInteger();
        ExecutorService threads = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                done.add(threads.submit(() -> {
                    int i;
                    while ((i = next.getAndIncrement()) < names) {
                        DistributedLock lock = client.getLock(prefix + ":" + i);
                        lock.lock();
                        lock.unlock();
                    }
                    return null;
                }));
            }
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(30);
            for (Future<?> future : done) {
                while (true) {
                    try {
                        future.get(5, TimeUnit.SECONDS);
                        break;
                    } catch (TimeoutException stillRunning) {
                        if (System.nanoTime() - deadline > 0) {
                            throw stillRunning;
                        }
                        if (progress != null) {
                            progress.printf(Locale.ROOT, "  %,d of %,d names locked and unlocked%n", Math.min(next.get(), names), names);
                        }
                    }
                }
            }
        } finally {
            threads.shutdownNow();
        }
    }

    /** The least heap in use over a few collections, so garbage does not count. */
    static long settledHeap() throws InterruptedException {
        Runtime runtime = Runtime.getRuntime();
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            System.gc();
            TimeUnit.MILLISECONDS.sleep(100);
            used = Math.min(used, runtime.totalMemory() - runtime.freeMemory());
        }
        return used;
    }
}
