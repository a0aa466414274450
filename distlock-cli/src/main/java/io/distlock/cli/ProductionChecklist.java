package io.distlock.cli;

import io.distlock.DoctorCheck;
import io.distlock.spi.LockBackendProvider;
import java.util.Comparator;
import java.util.List;

/**
 * The production checklist in Markdown, printed from the doctors' catalogues ({@link LockBackendProvider#doctorChecks()}),
 * so that the page and what {@code distlock doctor} examines cannot drift apart: docs/production-checklist.md is this
 * output, and a test compares them.
 */
final class ProductionChecklist {
    private ProductionChecklist() {}

    /** Returns the checklist of these providers' doctors, by backend id. */
    static String markdown(List<LockBackendProvider> providers) {
        StringBuilder out = new StringBuilder("""
                # Production checklist

                <!-- Printed by `./distlock doctor --checklist > docs/production-checklist.md` from the doctors' catalogues; \
                do not edit by hand. -->

                What to check on the servers that hold your locks before production. `distlock doctor --target URI` examines each \
                item below on your server, read only, and says which hold (see [doctor.md](doctor.md)): **unsafe** means locks can be \
                freed while held in normal operation (exit code 2), **risky** that an event that happens (a restart, a failover, the \
                loss of a member) can free them or stop locking (exit code 1), **unknown** that the server would not say.
                """);
        for (LockBackendProvider provider : providers.stream().sorted(Comparator.comparing(LockBackendProvider::id)).toList()) {
            out.append("\n## ").append(provider.id()).append("\n\n");
            List<DoctorCheck> checks = provider.doctorChecks();
            if (checks.isEmpty()) {
                out.append("No doctor yet: `distlock doctor` cannot examine ").append(provider.id()).append(" targets.\n");
                continue;
            }
            for (DoctorCheck check : checks) {
                out.append("- [ ] **`").append(check.id()).append("`**: ").append(check.examines()).append('\n');
                item(out, "unsafe when", check.unsafeWhen());
                item(out, "risky when", check.riskyWhen());
                item(out, "ok when", check.okWhen());
                item(out, "fix", check.fix());
            }
        }
        return out.toString();
    }

    private static void item(StringBuilder out, String label, String text) {
        if (!text.isEmpty()) {
            out.append("  - ").append(label).append(": ").append(text).append('\n');
        }
    }
}
