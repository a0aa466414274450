package io.distlock.redis;

import io.distlock.DoctorCheck;
import io.distlock.Finding;
import io.distlock.Finding.Severity;
import io.distlock.LockException;
import io.distlock.OpenOptions;
import io.distlock.spi.TargetUri;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The RedLock doctor: how many nodes, then the Redis doctor's checks on every node, each check's worst finding kept and
 * labelled with its node. A RedLock grant is a majority of votes: a node that evicts or forgets its keys on a restart
 * gives its vote again, so the nodes' own settings matter as on one Redis, and more (a restarted node without
 * persistence plus one paused holder's vote is a second majority).
 */
final class RedLockDoctor {
    static final DoctorCheck NODES = new DoctorCheck("redlock.nodes", "the number of nodes in the target and whether each answers", "",
            "fewer than 3 nodes (RedLock's majority needs at least 3 independent masters to survive the loss of one); an even number "
                    + "(no more failures survived than one node fewer); a node that does not answer (the others must all vote)",
            "an odd number of nodes, 3 or more (5 is RedLock's usual), every one answering",
            "list 3 or 5 independent masters in redlock://host1,host2,host3 (not replicas of one another)");
    /** The Redis checks judged on every node, under this backend's ids. */
    private static final List<DoctorCheck> PER_NODE = List.of(RedisDoctor.VERSION, RedisDoctor.EVICTION, RedisDoctor.PERSISTENCE,
            RedisDoctor.REPLICATION, RedisPermissions.CHECK, RedisDoctor.LATENCY);
    /** The catalogue, in the order findings come. */
    static final List<DoctorCheck> CHECKS = catalogue();

    private RedLockDoctor() {}

    private static List<DoctorCheck> catalogue() {
        List<DoctorCheck> checks = new ArrayList<>(List.of(NODES));
        for (DoctorCheck check : PER_NODE) {
            checks.add(new DoctorCheck(renamed(check.id()), check.examines() + ", on every node (the worst node counts)", check.unsafeWhen(),
                    check.riskyWhen(), check.okWhen(), check.fix()));
        }
        return List.copyOf(checks);
    }

    private static String renamed(String redisId) {
        return "redlock." + redisId.substring("redis.".length());
    }

    static List<Finding> diagnose(List<String> nodes, OpenOptions options) {
        List<Finding> findings = new ArrayList<>();
        Map<String, Finding> worst = new LinkedHashMap<>();
        List<String> silent = new ArrayList<>();
        for (String node : nodes) {
            String at = TargetUri.mask(node);
            List<Finding> ofNode;
            try {
                ofNode = RedisDoctor.diagnose(node, options);
            } catch (LockException e) { // unreachable (BackendUnavailableException) or refused
                silent.add(at + " (" + e.getMessage() + ")");
                continue;
            }
            for (Finding finding : ofNode) {
                Finding labelled = new Finding(renamed(finding.check()), finding.severity(), at + ": " + finding.observed(), finding.why(),
                        finding.fix());
                worst.merge(labelled.check(), labelled, (a, b) -> b.severity().compareTo(a.severity()) > 0 ? b : a);
            }
        }
        String observed = nodes.size() + " node(s)" + (silent.isEmpty() ? ", all answering" : ", not answering: " + String.join("; ", silent));
        if (!silent.isEmpty()) {
            findings.add(NODES.finding(Severity.RISKY, observed, "a node that does not answer gives no vote: one more lost and no "
                    + "majority can be had", NODES.fix()));
        } else if (nodes.size() < 3 || nodes.size() % 2 == 0) {
            findings.add(NODES.finding(Severity.RISKY, observed, nodes.size() < 3 ? "with fewer than 3 nodes the majority is every node: "
                    + "the loss of one stops locking" : "an even number of nodes survives no more failures than one node fewer",
                    NODES.fix()));
        } else {
            findings.add(NODES.ok(observed, "a majority survives the loss of " + (nodes.size() - 1) / 2 + " node(s)"));
        }
        findings.addAll(worst.values());
        return findings;
    }
}
