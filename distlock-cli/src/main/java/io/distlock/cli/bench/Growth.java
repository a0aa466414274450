package io.distlock.cli.bench;

import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockClients;
import io.distlock.OpenOptions;
import io.distlock.servers.TcpProxy;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Scenario growth: what one client's cost does as the number of locks it holds grows from 1 to {@code max} (by
 * powers of ten): the round trips per second it makes to keep them (renewals, session keep-alives), the client heap per
 * held lock, and the latency of one more acquire. The client talks to the server through a {@link TcpProxy} that
 * counts request-reply exchanges, so every backend is measured the same way, whatever its protocol.
 */
final class Growth {
    /** Acquire-and-release cycles of other names timed at each level. */
    static final int PROBES = 300;
    /**
     * Below this many held locks the heap per lock is not reported: the heap's own noise after collections (tens to
     * hundreds of KiB) is larger than what a few locks take.
     */
    static final int HEAP_FROM = 1000;
    private static final Pattern ONE_ADDRESS = Pattern.compile("(127\\.0\\.0\\.1|localhost):(\\d+)");

    private Growth() {}

    /**
     * One level: {@code held} locks held; {@code stalled} if that is fewer than the level asked for, because acquiring
     * them took longer than the fill limit (the last point of its backend).
     */
    record Point(String backend, int held, boolean stalled, double roundTripsPerSecond, double heapBytesPerLock, double acquireP50Us,
            double acquireP99Us) {
        static String header() {
            return String.format(Locale.ROOT, "%-8s %-10s %8s %14s %14s %12s %12s", "scenario", "backend", "held", "round trips/s",
                    "heap B/lock", "acquire p50", "acquire p99");
        }

        String row() {
            return String.format(Locale.ROOT, "%-8s %-10s %8d%s %14.1f %14s %10.0fus %10.0fus", "growth", backend, held,
                    stalled ? " (stalled)" : "", roundTripsPerSecond, Double.isNaN(heapBytesPerLock) ? "-" : String.format(Locale.ROOT, "%.0f", heapBytesPerLock),
                    acquireP50Us, acquireP99Us);
        }
    }

    private static final Pattern ROW = Pattern.compile(
            "growth\\s+(\\S+)\\s+(\\d+)( \\(stalled\\))?\\s+([\\d.]+)\\s+(-|-?\\d+)\\s+(\\d+)us\\s+(\\d+)us\\s*");

    /**
     * Reads the points of growth rows as {@link Point#row()} prints them (the table of an earlier run, which may hold other
     * lines too), so that runs of one backend per JVM (each with a heap baseline of its own) can be drawn together.
     */
    static List<Point> parse(List<String> lines) {
        List<Point> points = new ArrayList<>();
        for (String line : lines) {
            Matcher m = ROW.matcher(line);
            if (m.matches()) {
                points.add(new Point(m.group(1), Integer.parseInt(m.group(2)), m.group(3) != null, Double.parseDouble(m.group(4)),
                        m.group(5).equals("-") ? Double.NaN : Double.parseDouble(m.group(5)), Double.parseDouble(m.group(6)),
                        Double.parseDouble(m.group(7))));
            }
        }
        return points;
    }

    /** Returns the levels measured up to {@code max}: 1, 10, 100, ... and {@code max} itself. */
    static List<Integer> levels(int max) {
        List<Integer> levels = new ArrayList<>();
        for (long level = 1; level < max; level *= 10) {
            levels.add((int) level);
        }
        levels.add(max);
        return levels;
    }

    /**
     * Rewrites a target on this machine to go through a proxy: the one {@code 127.0.0.1:port} (or {@code localhost:port}) it
     * names becomes the proxy's port.
     *
     * @throws IllegalArgumentException if the target names no such address, or more than one
     */
    static String through(String target, int proxyPort) {
        Matcher m = ONE_ADDRESS.matcher(target);
        if (!m.find()) {
            throw new IllegalArgumentException("growth counts round trips through a proxy on this machine: the target must name "
                    + "127.0.0.1:port or localhost:port");
        }
        int start = m.start(2);
        int end = m.end(2);
        if (m.find()) {
            throw new IllegalArgumentException("growth counts round trips through one proxy: the target must name one server");
        }
        return target.substring(0, start) + proxyPort + target.substring(end);
    }

    /** Returns the port of the one server the target names (see {@link #through}). */
    static int portOf(String target) {
        Matcher m = ONE_ADDRESS.matcher(target);
        if (!m.find()) {
            throw new IllegalArgumentException("the target must name 127.0.0.1:port or localhost:port");
        }
        return Integer.parseInt(m.group(2));
    }

    /**
     * Holds 1, 10, ... {@code max} locks with one client on {@code target} (a server on this machine that nothing else
     * uses) opened with {@code options}, measuring each level for {@code windowNanos}. A level not reached within
     * {@code fillLimitNanos} of acquiring is measured where it stalled, and ends the run: holding more would only take
     * longer.
     */
    static List<Point> run(String backend, String target, OpenOptions options, int max, long windowNanos, long fillLimitNanos,
            PrintStream progress) throws Exception {
        List<Point> points = new ArrayList<>();
        try (TcpProxy proxy = TcpProxy.to(portOf(target)); LockClient client = LockClients.open(through(target, proxy.port()), options)) {
            for (int i = 0; i < 1000; i++) { // warm: classes loaded, connections open
                try (Lease lease = client.getLock("growth-warm:" + i).acquire()) {
                    lease.fencingToken();
                }
            }
            long baseline = ManyNames.settledHeap();
            List<Lease> held = new ArrayList<>();
            try {
                for (int level : levels(max)) {
                    long fill = System.nanoTime();
                    long lastProgress = fill;
                    boolean stalled = false;
                    while (held.size() < level) {
                        try {
                            held.add(client.getLock("growth:" + held.size()).acquire());
                        } catch (RuntimeException e) {
                            stalled = true; // the backend no longer keeps up: an acquire failed (timed out, most likely)
                            progress.printf(Locale.ROOT, "  %s: an acquire failed with %,d locks held (%s): measuring there, and no further%n",
                                    backend, held.size(), e);
                            break;
                        }
                        if (System.nanoTime() - lastProgress > TimeUnit.SECONDS.toNanos(10)) {
                            lastProgress = System.nanoTime();
                            progress.printf(Locale.ROOT, "  %s: %,d of %,d locks acquired%n", backend, held.size(), level);
                        }
                        if (held.size() < level && System.nanoTime() - fill > fillLimitNanos) {
                            stalled = true;
                            progress.printf(Locale.ROOT, "  %s: only %,d of %,d locks acquired within %d s: measuring there, and no further%n",
                                    backend, held.size(), level, TimeUnit.NANOSECONDS.toSeconds(fillLimitNanos));
                            break;
                        }
                    }
                    long heap = ManyNames.settledHeap() - baseline;
                    long[] probes = new long[PROBES];
                    try {
                        for (int i = 0; i < PROBES; i++) {
                            long start = System.nanoTime();
                            Lease probe = client.getLock("growth-probe:" + i).acquire();
                            probes[i] = System.nanoTime() - start;
                            probe.close();
                        }
                    } catch (RuntimeException e) {
                        // overloaded past answering in time: the levels so far are the result
                        progress.printf(Locale.ROOT, "  %s: with %,d locks held an acquire failed (%s): no further%n", backend,
                                held.size(), e);
                        break;
                    }
                    Arrays.sort(probes);
                    progress.printf(Locale.ROOT, "  %s: holding %,d locks; counting round trips for %d s%n", backend, held.size(),
                            TimeUnit.NANOSECONDS.toSeconds(windowNanos));
                    long tripsBefore = proxy.roundTrips();
                    long start = System.nanoTime();
                    TimeUnit.NANOSECONDS.sleep(windowNanos);
                    double seconds = (System.nanoTime() - start) / 1e9;
                    long trips = proxy.roundTrips() - tripsBefore;
                    int count = held.size();
                    long lost = held.stream().filter(lease -> !lease.isValid()).count();
                    if (lost > 0) {
                        // a lost lease is renewed no more: the count below is short by its renewals
                        progress.printf(Locale.ROOT, "  %s: %,d of %,d held leases were lost by the end of the window (a pause "
                                + "longer than the lease, or a server too slow to renew them): round trips are undercounted%n",
                                backend, lost, count);
                    }
                    Point point = new Point(backend, count, stalled, trips / seconds, count < HEAP_FROM ? Double.NaN : (double) heap / count,
                            probes[PROBES / 2] / 1e3,
                            probes[PROBES * 99 / 100] / 1e3);
                    progress.println("  " + point.row());
                    points.add(point);
                    if (stalled) {
                        break;
                    }
                }
            } finally {
                progress.printf(Locale.ROOT, "  %s: releasing %,d locks%n", backend, held.size());
                int failed = 0;
                for (Lease lease : held) {
                    try {
                        lease.close();
                    } catch (RuntimeException e) {
                        failed++; // lost meanwhile, or the server does not keep up: it expires with its lease
                    }
                }
                if (failed > 0) {
                    progress.printf(Locale.ROOT, "  %s: %,d of %,d releases failed (those locks expire with their leases)%n", backend,
                            failed, held.size());
                }
            }
        }
        return points;
    }
}
