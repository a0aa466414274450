package io.distlock.etcd;

import io.distlock.DoctorCheck;
import io.distlock.Finding;
import io.distlock.Finding.Severity;
import io.distlock.etcd.EtcdDoctor.Probe;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The doctor's check of authentication: whether etcd asks for a user, and whether the target's user may read the
 * namespace. etcd 3.4 has no call that says whether authentication is on; a read without a user does: etcd answers it
 * when authentication is off and refuses it ("user name is empty") when it is on.
 */
final class EtcdAuthCheck {
    static final DoctorCheck CHECK = new DoctorCheck("etcd.auth", "whether etcd asks for a user (a read of the namespace without one) "
            + "and whether the target's user may read the namespace", "", "authentication off (anyone who reaches the client port can "
                    + "delete lock keys or revoke session leases, and a held lock is then free while its holder works); the target's user "
                    + "refused, none given while authentication is on, or a user whose roles do not cover the namespace (acquires fail)",
            "authentication on, and the target's user may read the namespace (write access is not tested: the doctor writes nothing)",
            "etcdctl user add root, etcdctl auth enable; a user whose role may read and write the namespace (etcdctl role "
                    + "grant-permission --prefix=true locks readwrite distlock/), in the target: etcd://user:password@host:2379");

    private EtcdAuthCheck() {}

    /**
     * Judges the answers to a read of the namespace without a user and with the target's.
     *
     * @param withoutUser the answer without a user
     * @param withUser the answer with the target's user, or null if the target has none
     * @param user the target's user, or null
     * @param prefix the namespace's key prefix, {@code distlock/}
     */
    static Finding judge(Probe withoutUser, @Nullable Probe withUser, @Nullable String user, String prefix) {
        String grant = "etcdctl role grant-permission --prefix=true <role> readwrite " + prefix;
        if (withoutUser.failure() == null) {
            String anyone = "anyone who reaches the client port can delete lock keys (etcdctl del --prefix " + prefix + ") or revoke the "
                    + "session leases, and a held lock is then free while its holder works";
            if (withUser != null && withUser.says("authentication is not enabled")) {
                return CHECK.finding(Severity.RISKY, "authentication off; the target's user " + user + " refused: " + refusal(withUser),
                        "the target has credentials, but etcd authenticates nobody while authentication is off: the application cannot "
                                + "connect; and " + anyone, "etcdctl auth enable (after etcdctl user add root, and a role for " + user + ": "
                                + grant + "), or no credentials in the target");
            }
            return CHECK.finding(Severity.RISKY, "authentication off: a read of " + prefix + " without a user was answered",
                    "with authentication off " + anyone, CHECK.fix());
        }
        if (!withoutUser.says("user name is empty")) {
            return CHECK.unknown("a read of " + prefix + " without a user failed: " + refusal(withoutUser), "whether etcd asks for a user "
                    + "is not known");
        }
        if (withUser == null) {
            return CHECK.finding(Severity.RISKY, "authentication on; the target has no user", "etcd refuses every request without a user "
                    + "(user name is empty): every acquire fails", "a user in the target, etcd://user:password@host:2379, whose role may "
                            + "read and write the namespace (" + grant + ")");
        }
        if (withUser.failure() == null) {
            return CHECK.ok("authentication on; user " + user + " may read " + prefix, "only users whose roles cover the lock keys can "
                    + "change them (write access is not tested: the doctor writes nothing)");
        }
        if (withUser.says("permission denied")) {
            return CHECK.finding(Severity.RISKY, "authentication on; user " + user + " may not read " + prefix + ": " + refusal(withUser),
                    "the user's roles do not cover the namespace: every acquire fails (permission denied)", grant);
        }
        if (withUser.says("invalid user ID or password")) {
            return CHECK.finding(Severity.RISKY, "authentication on; user " + user + " refused: " + refusal(withUser), "etcd refuses "
                    + "the target's credentials: the application cannot connect", "the user's password in the target (etcdctl user "
                            + "passwd " + user + "), or etcdctl user add " + user);
        }
        return CHECK.unknown("authentication on; a read of " + prefix + " as " + user + " failed: " + refusal(withUser), "whether the "
                + "target's user may use the namespace is not known");
    }

    private static String refusal(Probe probe) {
        return EtcdDoctor.reason(Objects.requireNonNull(probe.failure()));
    }
}
