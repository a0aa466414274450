package io.distlock;

import io.distlock.Finding.Severity;
import java.util.Objects;

/**
 * One entry of a backend's doctor catalogue: what a check examines, when it is unsafe, risky or ok, and the fix. The
 * catalogue is the one source of the doctor's findings ({@link #finding}) and of the production checklist that
 * {@code distlock doctor --checklist} prints (docs/production-checklist.md is that output).
 *
 * @param id the stable id findings carry, {@code backend.topic}: {@code redis.eviction}, {@code zookeeper.ensemble}
 * @param examines what is read on the server, for people: {@code maxmemory-policy and maxmemory (CONFIG GET)}
 * @param unsafeWhen when the finding is {@link Severity#UNSAFE unsafe}, or empty if it never is
 * @param riskyWhen when the finding is {@link Severity#RISKY risky}, or empty if it never is
 * @param okWhen when it is {@link Severity#OK ok}
 * @param fix the change that makes it ok, or empty when the check is for the record only
 */
public record DoctorCheck(String id, String examines, String unsafeWhen, String riskyWhen, String okWhen, String fix) {
    /** Checks that every part is there and the id is {@code backend.topic}. */
    public DoctorCheck {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(examines, "examines");
        Objects.requireNonNull(unsafeWhen, "unsafeWhen");
        Objects.requireNonNull(riskyWhen, "riskyWhen");
        Objects.requireNonNull(okWhen, "okWhen");
        Objects.requireNonNull(fix, "fix");
        if (!id.matches("[a-z0-9-]+\\.[a-z0-9.-]+")) {
            throw new IllegalArgumentException("a doctor check's id is backend.topic in lower case, was '" + id + "'");
        }
    }

    /** Returns the backend part of the id: {@code redis} for {@code redis.eviction}. */
    public String backend() {
        return id.substring(0, id.indexOf('.'));
    }

    /**
     * Returns a finding of this check.
     *
     * @param severity how it bears on lock safety here
     * @param observed what the server said
     * @param why one line on why it matters, for this observation
     * @param fix the change to make, or empty (an ok finding has nothing to change)
     */
    public Finding finding(Severity severity, String observed, String why, String fix) {
        return new Finding(id, severity, observed, why, fix);
    }

    /** Returns an ok finding of this check: nothing to change. */
    public Finding ok(String observed, String why) {
        return new Finding(id, Severity.OK, observed, why, "");
    }

    /** Returns an unknown finding of this check: the server would not say; {@code why} says what was refused. */
    public Finding unknown(String observed, String why) {
        return new Finding(id, Severity.UNKNOWN, observed, why, fix);
    }
}
