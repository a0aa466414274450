package io.distlock.cli.demo;

import java.util.List;
import java.util.Locale;

/** What one strategy's race produced, read from the store and from the workers' reports. */
public record DemoResult(Strategy strategy, long stock, long sold, long doubleSoldItems, long waits, long aborted,
        long rejected, long lostLeases, long pauses, long stalls, long errors, double seconds, long attempts) {

    /** Returns how many more items were sold than there were in stock. */
    public long oversold() {
        return Math.max(0, sold - stock);
    }

    /** Returns purchase attempts per second. */
    public double throughput() {
        return seconds <= 0 ? 0 : attempts / seconds;
    }

    /** Returns the one-line verdict, honest about runs where the race did not hit. */
    public String verdict() {
        if (strategy == Strategy.DISTLOCK && (oversold() > 0 || doubleSoldItems > 0)) {
            return "OVERSOLD by " + oversold() + ": a holder frozen between its lease check and its write wrote late; "
                    + "no lease check closes that gap, only fencing (distlock-fenced) does";
        }
        if (strategy.isDistlock()) {
            if (oversold() > 0 || doubleSoldItems > 0) {
                return "UNEXPECTED: distlock-fenced oversold; please report this run (seed and output)";
            }
            if (strategy == Strategy.DISTLOCK_FENCED) {
                return "correct: " + rejected + " stale read(s) or write(s) from frozen holders refused by their fencing token";
            }
            return "no oversell in this run: the watchdog kept leases through slow work, and the frozen holders' late writes "
                    + "did not collide this time (they can: try another --seed)";
        }
        if (oversold() > 0 || doubleSoldItems > 0) {
            return "OVERSOLD by " + oversold() + ": " + explanation();
        }
        return "no oversell in this run (the race did not hit this time; it can: try another --seed)";
    }

    private String explanation() {
        return switch (strategy) {
            case NO_LOCK -> "concurrent read-modify-write loses updates";
            case SETNX_DEL -> "a slow holder's DEL freed the next holder's lock";
            case GET_THEN_DEL -> "the lease ended between GET and DEL, and DEL hit the next holder";
            case SETNX_GETSET -> "expired-lock takeover let two holders in";
            case SHORT_LEASE -> "the lease expired mid-purchase and a second buyer got in";
            default -> "overlapping holders";
        };
    }

    /** Renders results as a text table with a verdict line per strategy. */
    public static String table(List<DemoResult> results) {
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "%-19s %6s %9s %12s %10s %10s %10s%n",
                "strategy", "sold", "oversold", "double-sold", "lock waits", "attempts/s", "faults"));
        for (DemoResult r : results) {
            out.append(String.format(Locale.ROOT, "%-19s %6d %9d %12d %10d %10.0f %10s%n",
                    r.strategy.id(), r.sold, r.oversold(), r.doubleSoldItems, r.waits, r.throughput(),
                    r.pauses + "p/" + r.stalls + "s"));
        }
        out.append(System.lineSeparator());
        for (DemoResult r : results) {
            out.append(String.format(Locale.ROOT, "%-19s %s%n", r.strategy.id(), r.verdict()));
        }
        return out.toString();
    }

    /** Renders results as a JSON array. */
    public static String json(List<DemoResult> results, long seed) {
        StringBuilder out = new StringBuilder("{\"seed\":").append(seed).append(",\"results\":[");
        for (int i = 0; i < results.size(); i++) {
            DemoResult r = results.get(i);
            if (i > 0) {
                out.append(',');
            }
            out.append(String.format(Locale.ROOT,
                    "{\"strategy\":\"%s\",\"stock\":%d,\"sold\":%d,\"oversold\":%d,\"doubleSoldItems\":%d,\"lockWaits\":%d,"
                            + "\"abortedLeaseLost\":%d,\"rejectedByToken\":%d,\"lostOnRelease\":%d,\"processPauses\":%d,"
                            + "\"slowWorkStalls\":%d,\"errors\":%d,\"seconds\":%.3f,\"attemptsPerSecond\":%.1f,\"verdict\":\"%s\"}",
                    r.strategy.id(), r.stock, r.sold, r.oversold(), r.doubleSoldItems, r.waits, r.aborted, r.rejected,
                    r.lostLeases, r.pauses, r.stalls, r.errors, r.seconds, r.throughput(), r.verdict().replace("\"", "'")));
        }
        return out.append("]}").toString();
    }
}
