package io.distlock.spring.actuate;

import io.distlock.LockClient;
import io.distlock.spring.HeldLocks;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * What the {@code distlock} health indicator reports, whichever Boot line's health API carries it: up when
 * the backend answers (one read of a probe lock's state) and no held lock's last renewal failed. With the doctor
 * enabled ({@code distlock.doctor.enabled}), its findings that are not ok are details under {@code doctor}, and an
 * unsafe one makes the status down.
 */
public final class DistlockHealth {
    /** The probe lock's name; it is only read, never taken. */
    public static final String PROBE = "distlock-health-probe";

    /** A verdict with details. */
    public record Verdict(boolean up, Map<String, Object> details) {}

    private final LockClient client;
    private final HeldLocks held;
    private final @Nullable CachedDoctor doctor;

    /** Creates the health of {@code client} without the doctor. */
    public DistlockHealth(LockClient client, HeldLocks held) {
        this(client, held, null);
    }

    /** Creates the health of {@code client}, with the doctor's findings if {@code doctor} is not null. */
    public DistlockHealth(LockClient client, HeldLocks held, @Nullable CachedDoctor doctor) {
        this.client = client;
        this.held = held;
        this.doctor = doctor;
    }

    /** Asks the backend and looks at the held locks' renewals. */
    public Verdict check() {
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("backend", held.backend());
        details.put("held", held.size());
        boolean up = true;
        try {
            client.getLock(PROBE).isLocked();
            details.put("reachable", true);
        } catch (RuntimeException e) {
            up = false;
            details.put("reachable", false);
            details.put("error", e.getMessage());
        }
        List<String> failing = held.failingRenewals();
        if (!failing.isEmpty()) {
            up = false;
            details.put("failingRenewals", failing);
        }
        if (doctor != null) {
            CachedDoctor.Report report = doctor.report();
            details.put("doctor", CachedDoctor.details(report));
            if (CachedDoctor.unsafe(report)) {
                up = false;
            }
        }
        return new Verdict(up, details);
    }
}
