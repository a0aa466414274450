package io.distlock.etcd;

import io.distlock.DoctorCheck;
import io.distlock.Finding;
import io.distlock.Finding.Severity;
import io.distlock.etcd.EtcdClusterFindings.Cluster;
import io.distlock.etcd.EtcdClusterFindings.MemberView;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/** The doctor's check of the session TTL (or a shorter lease time) against the cluster's election timeout. */
final class EtcdSessionTtlCheck {
    /*
     * What an election does to our locks. etcd keeps leases across it: the new leader gives every lease its TTL again,
     * plus an election timeout (lessor.Promote; with --experimental-enable-lease-checkpoint, the TTL it had left). The
     * risk is on the client's side: until a leader is elected no keep-alive and no renewal is answered, and EtcdSession
     * ends a session that confirmed no keep-alive for its TTL (then revokes its lease), as the watchdog ends a lease
     * with no renewal confirmed for the lease time. One keep-alive goes out every third of the TTL, so at worst the
     * session goes two thirds of its TTL without an answer; after a leader's crash the followers wait one to two
     * election timeouts before one campaigns, and a split vote adds as much again. Two thirds of the TTL must cover
     * about three election timeouts: the TTL at least MIN_ELECTION_TIMEOUTS of them.
     *
     * The election timeout is not in etcd's API (Status, MemberList, /version, /metrics do not give it). /debug/vars
     * gives each member's command line: --election-timeout there is what the member runs with, unless a config file
     * replaces every flag (--config-file, or ETCD_CONFIG_FILE, which the doctor cannot see). Without the flag the
     * timeout is etcd's default of 1000 ms or ETCD_ELECTION_TIMEOUT, which the doctor cannot see either: unknown.
     */
    /** A TTL of fewer election timeouts than this is risky. */
    static final int MIN_ELECTION_TIMEOUTS = 5;
    /** etcd's default election timeout. */
    static final Duration ETCD_DEFAULT = Duration.ofMillis(1000);
    static final DoctorCheck CHECK = new DoctorCheck("etcd.session-ttl", "the session TTL (the target's ?sessionTtl, 15 s by default; a "
            + "shorter LockOptions.leaseTime counts instead) against the election timeout (--election-timeout on the members' command "
            + "line, from /debug/vars)", "", "a TTL under " + MIN_ELECTION_TIMEOUTS + " election timeouts: etcd keeps leases across a "
                    + "leader election, but answers no keep-alive until a leader is elected, and a session without an answered "
                    + "keep-alive for its TTL is lost with every lock of its client", "a TTL of " + MIN_ELECTION_TIMEOUTS
                    + " election timeouts or more", "a longer session: ?sessionTtl=15s in the target (EtcdLockClient.Builder.sessionTtl); "
                            + "or, on a fast network, a shorter --election-timeout");

    private EtcdSessionTtlCheck() {}

    /** Returns each answering member's command line from /debug/vars, by member name; empty for a member that did not give it. */
    static Map<String, Optional<List<String>>> commandLines(Cluster cluster, Duration timeout) {
        Map<String, Optional<List<String>>> lines = new LinkedHashMap<>();
        for (MemberView member : cluster.answering()) {
            lines.put(member.name(), EtcdDoctor.read(member.clientUrl(), "/debug/vars", timeout).flatMap(EtcdSessionTtlCheck::commandLine));
        }
        return lines;
    }

    /**
     * Judges the TTL against the largest election timeout the members' command lines give.
     *
     * @param sessionTtl the session TTL the client asks for
     * @param leaseTime the lease time the application set, if it did
     * @param commandLines each member's command line, by name; empty for a member that did not give it
     */
    static Finding judge(Duration sessionTtl, Optional<Duration> leaseTime, Map<String, Optional<List<String>>> commandLines) {
        Duration ttl = leaseTime.filter(lease -> lease.compareTo(sessionTtl) < 0).orElse(sessionTtl);
        String what = ttl.equals(sessionTtl) ? "sessionTtl " + text(sessionTtl) : "leaseTime " + text(ttl) + " (sessionTtl " + text(sessionTtl) + ")";
        List<String> unknown = new ArrayList<>();
        List<String> read = new ArrayList<>();
        long electionMillis = 0;
        for (Map.Entry<String, Optional<List<String>>> member : commandLines.entrySet()) {
            List<String> line = member.getValue().orElse(null);
            String value = line == null ? null : flag(line, "election-timeout");
            if (line == null) {
                unknown.add(member.getKey() + ": /debug/vars does not show its command line");
            } else if (flag(line, "config-file") != null) {
                unknown.add(member.getKey() + ": started with --config-file");
            } else if (value == null || !value.matches("\\d{1,9}")) {
                unknown.add(member.getKey() + ": no --election-timeout on its command line");
            } else {
                electionMillis = Math.max(electionMillis, Long.parseLong(value));
                read.add(member.getKey() + " " + value + " ms");
            }
        }
        if (commandLines.isEmpty()) {
            unknown.add("no member answered");
        }
        if (!unknown.isEmpty() || electionMillis == 0) {
            return CHECK.finding(Severity.UNKNOWN, what + "; election timeout unknown (" + String.join("; ", unknown) + ")", "etcd's API does "
                    + "not give the election timeout and the command line does not show it (ETCD_ELECTION_TIMEOUT or a config file set it "
                    + "unseen); with etcd's default of " + ETCD_DEFAULT.toMillis() + " ms this TTL is " + ratio(ttl, ETCD_DEFAULT.toMillis())
                    + " election timeouts. A TTL under " + MIN_ELECTION_TIMEOUTS + " election timeouts can end a session in one leader "
                    + "election: etcd keeps the leases, but answers no keep-alive until a leader is elected", "check the members' "
                    + "--election-timeout yourself: the session TTL should be " + MIN_ELECTION_TIMEOUTS + " of them or more (?sessionTtl= in "
                    + "the target)");
        }
        String observed = what + ", election timeout " + electionMillis + " ms (--election-timeout of " + String.join(", ", read) + "): "
                + ratio(ttl, electionMillis) + " election timeouts";
        if (ttl.toMillis() < MIN_ELECTION_TIMEOUTS * electionMillis) {
            return CHECK.finding(Severity.RISKY, observed, "etcd keeps leases across a leader election (the new leader gives each its TTL "
                    + "again), but answers no keep-alive until a leader is elected; the session goes two thirds of its TTL without an "
                    + "answer at worst, and electing a leader after a crash takes one to two election timeouts, more after a split vote: "
                    + "one election can end the session, and every holder of the client loses its lock", CHECK.fix());
        }
        return CHECK.ok(observed, "a leader election (one to two election timeouts, more after a split vote) ends well within the two thirds "
                + "of the TTL a session can go without an answered keep-alive; etcd keeps the leases meanwhile");
    }

    /** Returns the value of flag {@code name} ({@code --name value}, {@code --name=value}, one dash too), or null. */
    static @Nullable String flag(List<String> arguments, String name) {
        for (int i = 1; i < arguments.size(); i++) {
            String argument = arguments.get(i).replaceFirst("^--?", "");
            if (argument.equals(name)) {
                return i + 1 < arguments.size() ? arguments.get(i + 1) : null;
            }
            if (argument.startsWith(name + "=")) {
                return argument.substring(name.length() + 1);
            }
        }
        return null;
    }

    /** Returns the {@code "cmdline"} array of a /debug/vars document (JSON), or empty. */
    static Optional<List<String>> commandLine(String debugVars) {
        int at = debugVars.indexOf("\"cmdline\"");
        int open = at < 0 ? -1 : debugVars.indexOf('[', at);
        if (open < 0) {
            return Optional.empty();
        }
        List<String> arguments = new ArrayList<>();
        int i = open + 1;
        while (i < debugVars.length()) {
            char c = debugVars.charAt(i);
            if (c == ']') {
                return Optional.of(arguments);
            }
            if (c != '"') {
                i++;
                continue;
            }
            StringBuilder argument = new StringBuilder();
            for (i++; i < debugVars.length() && debugVars.charAt(i) != '"'; i++) {
                char next = debugVars.charAt(i);
                if (next == '\\' && i + 1 < debugVars.length()) {
                    char escaped = debugVars.charAt(++i);
                    if (escaped == 'u' && i + 4 < debugVars.length() && debugVars.substring(i + 1, i + 5).matches("[0-9a-fA-F]{4}")) {
                        argument.append((char) Integer.parseInt(debugVars.substring(i + 1, i + 5), 16));
                        i += 4;
                    } else {
                        argument.append(switch (escaped) {
                            case 'n' -> '\n';
                            case 't' -> '\t';
                            case 'r' -> '\r';
                            case 'b' -> '\b';
                            case 'f' -> '\f';
                            default -> escaped;
                        });
                    }
                } else {
                    argument.append(next);
                }
            }
            arguments.add(argument.toString());
            i++;
        }
        return Optional.empty();
    }

    private static String ratio(Duration ttl, long electionMillis) {
        return String.format(Locale.ROOT, "%.1f", ttl.toMillis() / (double) electionMillis);
    }

    private static String text(Duration duration) {
        return duration.toMillis() % 1000 == 0 ? duration.toSeconds() + " s" : duration.toMillis() + " ms";
    }
}
