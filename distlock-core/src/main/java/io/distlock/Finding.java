package io.distlock;

import java.util.Objects;

/**
 * One thing a backend's doctor found about a server's configuration, read only: how it bears on lock safety, why, and
 * the change that fixes it ({@link LockClients#diagnose}).
 *
 * @param check what was examined, a stable id such as {@code redis.eviction}
 * @param severity how it bears on lock safety
 * @param observed what the server said, such as {@code maxmemory-policy allkeys-lru, maxmemory 10485760}
 * @param why one line on why it matters for locks
 * @param fix the configuration to change, or empty when there is nothing to change
 */
public record Finding(String check, Severity severity, String observed, String why, String fix) {
    /** How a finding bears on lock safety, from best to worst. */
    public enum Severity {
        /** Nothing to change. */
        OK,
        /** The fact could not be read (a managed service that hides its configuration, a refused command); never a guess. */
        UNKNOWN,
        /** Locks hold, but an event that happens (a restart, a failover) can free a held lock. */
        RISKY,
        /** Locks can be freed while held in normal operation (memory pressure, ...). */
        UNSAFE
    }

    /** Checks that every part is there. */
    public Finding {
        Objects.requireNonNull(check, "check");
        Objects.requireNonNull(severity, "severity");
        Objects.requireNonNull(observed, "observed");
        Objects.requireNonNull(why, "why");
        Objects.requireNonNull(fix, "fix");
    }

    /** Returns the exit code of {@code distlock doctor} for these findings: 2 if any is unsafe, 1 if any is risky, else 0. */
    public static int exitCode(Iterable<Finding> findings) {
        int code = 0;
        for (Finding finding : findings) {
            code = Math.max(code, finding.severity() == Severity.UNSAFE ? 2 : finding.severity() == Severity.RISKY ? 1 : 0);
        }
        return code;
    }
}
