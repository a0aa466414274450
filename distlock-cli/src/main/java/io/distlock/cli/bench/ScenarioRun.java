package io.distlock.cli.bench;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

/** Runs one scenario against one contender: warm-up, then a fixed measured duration. */
public final class ScenarioRun {
    private ScenarioRun() {}

    /**
     * Runs {@code rounds} rounds of {@code scenario} for every contender, rotating their order each
     * round so that drift on a noisy machine hits all alike, and returns each contender's median
     * round, in the order of {@code ids}. Progress goes to {@code progress}.
     */
    public static List<Measurement> medians(List<String> ids, Function<String, Contender> factory, Scenario scenario,
            int rounds, Duration warmup, Duration duration, PrintStream progress) throws InterruptedException {
        Map<String, List<Measurement>> byId = new LinkedHashMap<>();
        ids.forEach(id -> byId.put(id, new ArrayList<>()));
        for (int round = 0; round < rounds; round++) {
            for (int i = 0; i < ids.size(); i++) {
                String id = ids.get((i + round) % ids.size());
                try (Contender contender = factory.apply(id)) {
                    progress.printf(Locale.ROOT, "%s round %d/%d %-20s ", scenario.id(), round + 1, rounds, id);
                    Measurement m = run(contender, scenario, warmup, duration, "bench-" + round);
                    progress.printf(Locale.ROOT, "%10.0f cycles/s  p50 %6.0f us  p99 %7.0f us%n",
                            m.cyclesPerSecond(), m.p50Nanos() / 1e3, m.p99Nanos() / 1e3);
                    Objects.requireNonNull(byId.get(id), "every id has a list").add(m);
                }
            }
        }
        List<Measurement> medians = new ArrayList<>();
        byId.values().forEach(measured -> medians.add(Measurement.median(measured)));
        return medians;
    }

    /** Runs {@code scenario} on {@code contender}: warm-up, then {@code duration} measured. */
    public static Measurement run(Contender contender, Scenario scenario, Duration warmup, Duration duration, String namePrefix)
            throws InterruptedException {
        AtomicBoolean measuring = new AtomicBoolean(false);
        AtomicBoolean stop = new AtomicBoolean(false);
        long[][] latencies = new long[scenario.threads][];
        int[] counts = new int[scenario.threads];
        List<Throwable> failures = new ArrayList<>();
        CountDownLatch done = new CountDownLatch(scenario.threads);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < scenario.threads; t++) {
            int index = t;
            String name = namePrefix + ":" + scenario.id() + ":" + (t % scenario.names);
            Thread thread = new Thread(() -> {
                long[] samples = new long[1 << 16];
                int count = 0;
                try {
                    while (!stop.get()) {
                        long start = System.nanoTime();
                        contender.cycle(name);
                        long took = System.nanoTime() - start;
                        if (measuring.get()) {
                            if (count == samples.length) {
                                samples = Arrays.copyOf(samples, samples.length * 2);
                            }
                            samples[count++] = took;
                        }
                    }
                } catch (Throwable e) {
                    synchronized (failures) {
                        failures.add(e);
                    }
                } finally {
                    latencies[index] = samples;
                    counts[index] = count;
                    done.countDown();
                }
            }, "bench-" + scenario.id() + "-" + t);
            thread.setDaemon(true);
            threads.add(thread);
            thread.start();
        }
        Thread.sleep(warmup.toMillis());
        measuring.set(true);
        long start = System.nanoTime();
        Thread.sleep(duration.toMillis());
        measuring.set(false);
        double seconds = (System.nanoTime() - start) / 1e9;
        stop.set(true);
        if (!done.await(60, java.util.concurrent.TimeUnit.SECONDS)) {
            throw new IllegalStateException(contender.id() + " " + scenario.id() + ": threads did not stop within 60 s");
        }
        if (!failures.isEmpty()) {
            throw new IllegalStateException(contender.id() + " " + scenario.id() + " failed: " + failures.get(0), failures.get(0));
        }
        int total = Arrays.stream(counts).sum();
        long[] all = new long[total];
        int at = 0;
        for (int t = 0; t < scenario.threads; t++) {
            System.arraycopy(latencies[t], 0, all, at, counts[t]);
            at += counts[t];
        }
        return Measurement.of(contender.id(), scenario, all, total, seconds);
    }
}
