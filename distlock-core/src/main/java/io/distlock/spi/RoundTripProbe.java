package io.distlock.spi;

import io.distlock.DoctorCheck;
import io.distlock.Finding;
import io.distlock.Finding.Severity;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;

/**
 * Measures a server's round trips for a doctor and judges them against the lease: the watchdog renews a lease every
 * third of its time and the lease ends, on the client's own clock, a lease after the renewal was sent; so a round trip
 * that takes a third of the lease leaves one slow reply between the holder and a lost lock.
 *
 * <p>Round trips are sent one after the other (a probe of latency, not of throughput), up to {@link #MAX_SAMPLES} or
 * for {@link #BUDGET}, whichever ends first, so a slow link cannot make the doctor slow.
 */
public final class RoundTripProbe {
    /** The most round trips one probe sends. */
    public static final int MAX_SAMPLES = 50;
    /** How long one probe may take: it stops sending after this. */
    public static final Duration BUDGET = Duration.ofSeconds(2);

    private RoundTripProbe() {}

    /** One round trip to the server (a PING, a read of one key). */
    @FunctionalInterface
    public interface RoundTrip {
        /** Sends one request and waits for its answer; throws the client's unchecked exception if there is none. */
        void run();
    }

    /** Returns the catalogue entry of a backend's latency check, {@code backend.latency}. */
    public static DoctorCheck check(String backend, String request) {
        return new DoctorCheck(backend + ".latency", "round trips (" + request + ", one after the other for up to 2 s) against the "
                + "lease time the application uses", "", "the slowest round trips (p99) take a third of the lease or more: the "
                + "watchdog renews every third of the lease, so one slow reply ends a lease while its holder works (the holder is told, "
                + "the lock is lost)", "p99 below a third of the lease",
                "a longer lease (LockOptions.leaseTime; the doctor's --lease), or a server nearer the application");
    }

    /**
     * Sends round trips and returns the finding of {@code check} for them against {@code lease}; what the first failed
     * round trip throws goes to the caller.
     */
    public static Finding judge(DoctorCheck check, RoundTrip roundTrip, Duration lease) {
        long[] samples = new long[MAX_SAMPLES];
        int count = 0;
        long end = System.nanoTime() + BUDGET.toNanos();
        while (count < MAX_SAMPLES && (count == 0 || System.nanoTime() < end)) {
            long start = System.nanoTime();
            roundTrip.run();
            samples[count++] = System.nanoTime() - start;
        }
        long[] sorted = Arrays.copyOf(samples, count);
        Arrays.sort(sorted);
        long p50 = percentile(sorted, 0.50);
        long p99 = percentile(sorted, 0.99);
        String observed = String.format(Locale.ROOT, "%d round trips: p50 %s, p99 %s, max %s; lease %s", count, millis(p50), millis(p99),
                millis(sorted[count - 1]), millis(lease.toNanos()));
        if (p99 * 3 >= lease.toNanos()) {
            return check.finding(Severity.RISKY, observed, "the slowest round trips take a third of the lease or more: a renewal sent at a "
                    + "third of the lease may be answered after the lease ended, and the holder loses its lock while it works", check.fix());
        }
        return check.ok(observed, "a renewal is answered well within the lease");
    }

    private static long percentile(long[] sorted, double fraction) {
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(fraction * sorted.length) - 1)];
    }

    private static String millis(long nanos) {
        return String.format(Locale.ROOT, "%.1f ms", nanos / 1e6);
    }
}
