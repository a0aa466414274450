package io.distlock.cli.bench;

import java.util.Arrays;

/**
 * One timed run of a scenario for one contender: cycles per second and cycle latency percentiles
 * (a cycle is lock + unlock, including any wait for the lock).
 */
public record Measurement(String contender, Scenario scenario, long cycles, double seconds, long p50Nanos, long p99Nanos, long maxNanos) {

    /** Returns completed cycles per second. */
    public double cyclesPerSecond() {
        return cycles / seconds;
    }

    /** Returns the measurement of {@code count} cycle latencies over {@code seconds}. */
    public static Measurement of(String contender, Scenario scenario, long[] latencies, int count, double seconds) {
        long[] sorted = Arrays.copyOf(latencies, count);
        Arrays.sort(sorted);
        return new Measurement(contender, scenario, count, seconds, percentile(sorted, 0.50), percentile(sorted, 0.99),
                count == 0 ? 0 : sorted[count - 1]);
    }

    private static long percentile(long[] sorted, double q) {
        if (sorted.length == 0) {
            return 0;
        }
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(q * sorted.length) - 1)];
    }

    /** Returns the run with the median cycles/s of several rounds (with its own latencies). */
    public static Measurement median(java.util.List<Measurement> rounds) {
        Measurement[] sorted = rounds.toArray(Measurement[]::new);
        Arrays.sort(sorted, java.util.Comparator.comparingDouble(Measurement::cyclesPerSecond));
        return sorted[sorted.length / 2];
    }
}
