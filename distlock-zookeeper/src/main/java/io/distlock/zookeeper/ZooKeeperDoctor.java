package io.distlock.zookeeper;

import io.distlock.BackendUnavailableException;
import io.distlock.DoctorCheck;
import io.distlock.Finding;
import io.distlock.Finding.Severity;
import io.distlock.LockOptions;
import io.distlock.OpenOptions;
import io.distlock.spi.RoundTripProbe;
import io.distlock.spi.TargetUri;
import io.distlock.zookeeper.ZooKeeperServerStatus.Answer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;

/**
 * The ZooKeeper doctor: opens one session as the application's client would (same connect string, chroot, digest and
 * requested session timeout) and judges what bears on our locks, which are ephemeral nodes that live exactly as long as
 * their holder's session: the ensemble's voting members, the session timeout the server grants, the round trips
 * against the lease, each server's mode, and the version for the record. Read only.
 */
final class ZooKeeperDoctor {
    /*
     * Sources: the session itself (its negotiated timeout; a ConnectedReadOnly state), the config znode
     * /zookeeper/config (getConfig: the server.N lines of a quorum; empty on a standalone server), and srvr on every
     * server the target names (mode, version). srvr is the one four-letter word servers allow by default; ruok, stat,
     * conf and mntr are not, so they are not used. The session is asked for canBeReadOnly, unlike the application's
     * client, so that a read-only server is seen and named instead of merely unreachable. The latency probe reads "/"
     * (the chroot) with exists on the same session: the chroot node need not exist, and a NoAuth answer is a round trip
     * too. No node is created; the session is closed before returning.
     */
    static final DoctorCheck VERSION = new DoctorCheck("zookeeper.version", "each server's version (srvr), for the record", "", "",
            "always", "");
    static final DoctorCheck ENSEMBLE = new DoctorCheck("zookeeper.ensemble",
            "the voting members in /zookeeper/config (getConfig), or srvr's Mode: standalone", "",
            "one member (while it is down or restarting no lock can be taken or renewed and holders lose their leases; down past "
                    + "the session timeout, every held lock is freed); an even number (four members survive no more failures than "
                    + "three, two none at all: the extra member is one more to lose)",
            "an odd number, three or more: a majority keeps serving, and sessions and their locks survive the loss of a minority",
            "three or five voting members (server.N lines in zoo.cfg)");
    static final DoctorCheck SESSION_TIMEOUT = new DoctorCheck("zookeeper.session-timeout",
            "the session timeout the client asks for (?sessionTimeout=, default 15 s) against the one the server grants "
                    + "(clamped to minSessionTimeout..maxSessionTimeout)", "",
            "the server grants less (a pause or disconnection shorter than the application configured expires the holder's "
                    + "session, its lock nodes are deleted and another client acquires the lock; leases are cut to match), or more "
                    + "(a crashed holder's locks stay held that much longer)",
            "the server grants what the client asks for",
            "minSessionTimeout and maxSessionTimeout in zoo.cfg around the requested timeout (by default 2 and 20 x tickTime), "
                    + "or ?sessionTimeout= within them");
    static final DoctorCheck MODE = new DoctorCheck("zookeeper.mode", "each server of the target (srvr Mode), and the doctor's own session",
            "", "a server is read-only (cut off from its quorum, it refuses writes: acquires fail, and the application's client, "
                    + "which asks for read-write sessions, cannot connect to it); a server is not serving or does not answer (the "
                    + "ensemble runs a member short)",
            "every server is standalone, leader, follower or observer",
            "bring the server back into its quorum, or drop a server that is gone from the target; for the doctor to see the mode, "
                    + "srvr in 4lw.commands.whitelist (always allowed since ZooKeeper 3.5)");
    static final DoctorCheck LATENCY = latencyCheck();
    /** The catalogue, in the order findings come. */
    static final List<DoctorCheck> CHECKS = List.of(VERSION, ENSEMBLE, SESSION_TIMEOUT, LATENCY, MODE);

    private static final String WHITELIST_FIX = "add srvr to 4lw.commands.whitelist in zoo.cfg (ZooKeeper 3.5 and later always "
            + "allow it), and let four-letter words through to the client port";

    private ZooKeeperDoctor() {}

    /** Core's latency check, told that a ZooKeeper lease is by default, and at most, the session timeout. */
    private static DoctorCheck latencyCheck() {
        DoctorCheck probe = RoundTripProbe.check("zookeeper", "exists(\"/\"), a read");
        return new DoctorCheck(probe.id(), probe.examines() + " (by default the session timeout the server grants)", probe.unsafeWhen(),
                probe.riskyWhen(), probe.okWhen(), probe.fix() + "; a ZooKeeper lease is at most the session timeout, so a longer "
                        + "one needs a longer ?sessionTimeout= in the target (within the server's maxSessionTimeout)");
    }

    static List<Finding> diagnose(String target, OpenOptions options) {
        ZooKeeperTarget parsed = ZooKeeperTarget.parse(target);
        options.namespace().ifPresent(ZooKeeperNamespaces::check); // open would refuse it: so does the doctor, before connecting
        try (ZooKeeperSession session = ZooKeeperSession.open(parsed, target, true, "the ZooKeeper doctor")) {
            ZooKeeper zk = session.zooKeeper();
            Duration negotiated = session.negotiatedTimeout();
            Optional<Duration> leaseTime = options.lockOptions().map(LockOptions::leaseTime);
            String config = readConfig(zk);
            List<ZooKeeperServerStatus> servers = parsed.hosts().stream()
                    .map(host -> ZooKeeperServerStatus.ask(host, parsed.connectionTimeout())).toList();
            List<Finding> findings = new ArrayList<>();
            findings.add(version(servers));
            findings.add(ensemble(config, servers));
            findings.add(sessionTimeout(parsed.sessionTimeout(), negotiated, leaseTime));
            // the client's default lease is the negotiated session (ZooKeeperLockClient.Builder#build)
            findings.add(RoundTripProbe.judge(LATENCY, () -> exists(zk, target), leaseTime.orElse(negotiated)));
            findings.add(mode(servers, session.readOnly()));
            return findings;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BackendUnavailableException("interrupted while the ZooKeeper doctor examined " + TargetUri.mask(target), e);
        }
    }

    /** One round trip of the latency probe: a read of the root (the chroot); a refusal by its ACL is an answer too. */
    private static void exists(ZooKeeper zk, String target) {
        try {
            zk.exists("/", false);
        } catch (KeeperException.NoAuthException answered) {
            // the server read the ACL and answered: a round trip like any other
        } catch (KeeperException e) {
            throw new BackendUnavailableException("the ZooKeeper doctor lost " + TargetUri.mask(target) + " while it measured round trips: "
                    + e.code(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BackendUnavailableException("interrupted while the ZooKeeper doctor measured round trips to " + TargetUri.mask(target), e);
        }
    }

    /** Returns the config znode's text, or {@code "!"} and why it could not be read. */
    private static String readConfig(ZooKeeper zk) throws InterruptedException {
        try {
            byte[] data = zk.getConfig(false, null);
            return data == null ? "" : new String(data, StandardCharsets.UTF_8);
        } catch (KeeperException e) {
            return "!" + e.code();
        }
    }

    private static Finding version(List<ZooKeeperServerStatus> servers) {
        List<String> versions = servers.stream().filter(s -> s.version() != null).map(s -> s.server() + " " + s.version()).toList();
        if (versions.isEmpty()) {
            return VERSION.finding(Severity.UNKNOWN, servers.stream().map(ZooKeeperServerStatus::describe).collect(Collectors.joining(", ")),
                    "no server told its version (srvr)", WHITELIST_FIX);
        }
        return VERSION.ok(String.join(", ", versions), "the servers' versions, for the record");
    }

    static Finding ensemble(String config, List<ZooKeeperServerStatus> servers) {
        List<String> voters = new ArrayList<>();
        List<String> observers = new ArrayList<>();
        if (!config.startsWith("!")) {
            for (String line : config.split("\n")) {
                if (line.startsWith("server.") && line.contains("=")) {
                    String address = line.substring(line.indexOf('=') + 1).split(";")[0];
                    (address.endsWith(":observer") ? observers : voters).add(line.substring(0, line.indexOf('=')).trim());
                }
            }
        }
        if (voters.isEmpty()) {
            Optional<ZooKeeperServerStatus> standalone = servers.stream().filter(s -> "standalone".equals(s.mode())).findFirst();
            if (standalone.isPresent()) {
                return ENSEMBLE.finding(Severity.RISKY, standalone.get().server() + " runs standalone (srvr Mode: standalone)", oneMember(),
                        "three or five voting members (server.N lines in zoo.cfg)");
            }
            String configState = config.startsWith("!") ? "refused (" + config.substring(1) + ")" : "empty";
            return ENSEMBLE.finding(Severity.UNKNOWN, "/zookeeper/config " + configState + "; " + servers.stream()
                    .map(ZooKeeperServerStatus::describe).collect(Collectors.joining(", ")),
                    "the members could not be read: how many failures the ensemble survives is unknown",
                    "let the doctor read /zookeeper/config, or " + WHITELIST_FIX);
        }
        int n = voters.size();
        String observed = members(n, "voting member") + " in /zookeeper/config (" + String.join(", ", voters) + ")"
                + (observers.isEmpty() ? "" : " and " + members(observers.size(), "observer"));
        String fix = "three or five voting members (server.N lines in zoo.cfg; observers do not count)";
        if (n == 1) {
            return ENSEMBLE.finding(Severity.RISKY, observed, oneMember(), fix);
        }
        if (n % 2 == 0) {
            return ENSEMBLE.finding(Severity.RISKY, observed, n + " voting members need " + (n / 2 + 1) + " for a quorum: they survive "
                    + "the loss of " + members((n - 1) / 2, "member") + ", as " + (n - 1) + " would, and the extra member is one more "
                    + "that can fail; beyond that no lock can be taken or renewed, and locks are freed as their holders' sessions expire", fix);
        }
        return ENSEMBLE.ok(observed, "a majority keeps serving after the loss of " + members((n - 1) / 2, "member") + ": sessions, "
                + "and the lock nodes that live as long as them, survive it");
    }

    private static String members(int count, String noun) {
        return count + " " + noun + (count == 1 ? "" : "s");
    }

    private static String oneMember() {
        return "a single member: while it is down or restarting no lock can be taken or renewed and holders lose their leases; "
                + "down past the session timeout (or with its data lost), every held lock is freed";
    }

    static Finding sessionTimeout(Duration requested, Duration negotiated, Optional<Duration> leaseTime) {
        String observed = "requested " + requested.toMillis() + " ms, negotiated " + negotiated.toMillis() + " ms"
                + leaseTime.map(lease -> ", leaseTime " + lease.toMillis() + " ms").orElse("");
        int compared = negotiated.compareTo(requested);
        if (compared < 0) {
            return SESSION_TIMEOUT.finding(Severity.RISKY, observed, "the server cuts the session to " + negotiated.toMillis() + " ms "
                    + "(its maxSessionTimeout): a holder paused or cut off that long, shorter than the " + requested.toMillis()
                    + " ms the application configured, has its session expired and its lock nodes deleted, and another client "
                    + "acquires the lock; the client also cuts its leases to the session" + refusedLease(negotiated, leaseTime),
                    "maxSessionTimeout=" + requested.toMillis() + " (or more) in zoo.cfg (default 20 x tickTime), or ?sessionTimeout="
                            + negotiated.toMillis() + "ms in the target to ask for what the server grants");
        }
        if (compared > 0) {
            return SESSION_TIMEOUT.finding(Severity.RISKY, observed, "the server raises the session to " + negotiated.toMillis()
                    + " ms (its minSessionTimeout): a crashed holder's locks stay held " + negotiated.toMillis() + " ms, not the "
                    + requested.toMillis() + " ms the application configured, and waiters wait that much longer"
                    + refusedLease(negotiated, leaseTime), "minSessionTimeout=" + requested.toMillis() + " (or less) in zoo.cfg "
                            + "(default 2 x tickTime), or ?sessionTimeout=" + negotiated.toMillis() + "ms in the target");
        }
        if (leaseTime.isPresent() && leaseTime.get().compareTo(negotiated) > 0) {
            return SESSION_TIMEOUT.finding(Severity.RISKY, observed, "the server grants the session asked for" + refusedLease(negotiated,
                    leaseTime), "a leaseTime of at most " + negotiated.toMillis() + " ms, or a longer ?sessionTimeout=");
        }
        return SESSION_TIMEOUT.ok(observed, "the server grants the session asked for: a holder's locks outlive a pause or "
                + "disconnection shorter than it, and are freed that long after the holder dies");
    }

    private static String refusedLease(Duration session, Optional<Duration> leaseTime) {
        return leaseTime.filter(lease -> lease.compareTo(session) > 0).map(lease -> "; the application's leaseTime of " + lease.toMillis()
                + " ms is longer than the session, so its client refuses it when it opens").orElse("");
    }

    static Finding mode(List<ZooKeeperServerStatus> servers, boolean sessionReadOnly) {
        String observed = servers.stream().map(ZooKeeperServerStatus::describe).collect(Collectors.joining(", "))
                + (sessionReadOnly ? "; the doctor's session is read-only" : "");
        if (sessionReadOnly || servers.stream().anyMatch(s -> "read-only".equals(s.mode()))) {
            return MODE.finding(Severity.RISKY, observed, "read-only: a server cut off from its quorum serves reads only; it refuses "
                    + "the writes a lock needs, so acquires fail, and the application's client (read-write sessions only) cannot "
                    + "connect to it", "bring the server back into its quorum (or point the target at members that have one)");
        }
        List<String> missing = servers.stream().filter(s -> s.answer() == Answer.NOT_SERVING || s.answer() == Answer.NONE)
                .map(ZooKeeperServerStatus::server).toList();
        if (!missing.isEmpty()) {
            return MODE.finding(Severity.RISKY, observed, String.join(", ", missing) + " not serving: the ensemble runs a member "
                    + "short (one more loss may stop it), or the target names a server that is gone",
                    "bring the server back into its quorum, or remove it from the target");
        }
        if (servers.stream().anyMatch(s -> s.answer() == Answer.REFUSED)) {
            return MODE.finding(Severity.UNKNOWN, observed, "srvr was refused (4lw.commands.whitelist leaves it out, or four-letter "
                    + "words are filtered): whether a server is read-only or out of its quorum cannot be read", WHITELIST_FIX);
        }
        return MODE.ok(observed, "every server serves reads and writes");
    }
}
