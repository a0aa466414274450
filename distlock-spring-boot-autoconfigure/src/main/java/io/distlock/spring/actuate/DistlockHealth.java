package io.distlock.spring.actuate;

import io.distlock.LockClient;
import io.distlock.spring.HeldLocks;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the {@code distlock} health indicator reports, whichever Boot line's health API carries it: up when
 * the backend answers (one read of a probe lock's state) and no held lock's last renewal failed.
 */
public final class DistlockHealth {
    /** The probe lock's name; it is only read, never taken. */
    public static final String PROBE = "distlock-health-probe";

    /** A verdict with details. */
    public record Verdict(boolean up, Map<String, Object> details) {}

    private final LockClient client;
    private final HeldLocks held;

    public DistlockHealth(LockClient client, HeldLocks held) {
        this.client = client;
        this.held = held;
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
        return new Verdict(up, details);
    }
}
