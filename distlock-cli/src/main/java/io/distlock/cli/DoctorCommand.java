package io.distlock.cli;

import io.distlock.Finding;
import io.distlock.Finding.Severity;
import io.distlock.LockClients;
import io.distlock.LockException;
import io.distlock.LockOptions;
import io.distlock.OpenOptions;
import io.distlock.cli.options.LeaseOption;
import io.distlock.cli.locks.LocksOutput;
import io.distlock.cli.options.Targets;
import io.distlock.spi.LockBackendProvider;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code distlock doctor}: reads the configuration of the user's server and says what bears on lock safety, each finding
 * with its severity, why it matters and the fix. Read only: it changes nothing and takes no lock.
 */
@Command(name = "doctor", mixinStandardHelpOptions = true,
        description = {"Examine your server's configuration for what can free a held lock, read only.",
                "",
                "Each finding has a severity (unsafe: locks can be freed while held in normal operation; risky: an event such as a "
                        + "restart or a failover can free them; unknown: the server would not say; ok), one line on why, and the fix. "
                        + "Give the target as the application opens it: its parameters (such as ?minReplicas=1) count, and the lease time it "
                        + "uses (--lease): round trips are judged against it. 'distlock doctor --checklist' lists every check.",
                "",
                "Exit code: 2 if a finding is unsafe (or for bad options, an unreachable server), 1 if one is risky, 0 otherwise."})
public final class DoctorCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--target", paramLabel = "URI", description = "Your server, as a registry target: redis://host:6379 "
            + "('distlock backends' shows every form). Required unless --checklist is given.")
    @Nullable String target;

    @Option(names = "--checklist", description = "Print the production checklist instead: every check of every backend's doctor, in "
            + "Markdown (docs/production-checklist.md is this output).")
    boolean checklist;

    @Option(names = "--backend", paramLabel = "ID", description = "The backend the target must be for (default: the one its scheme names).")
    @Nullable String backend;

    @Mixin
    LeaseOption lease = new LeaseOption(LockOptions.DEFAULT_LEASE_TIME, Duration.ofMillis(10), Duration.ofDays(1));

    @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "text", description = "text or json. Default: ${DEFAULT-VALUE}.")
    String format;

    @Override
    public Integer call() {
        boolean json = switch (format.toLowerCase(Locale.ROOT)) {
            case "text" -> false;
            case "json" -> true;
            default -> throw new ParameterException(spec.commandLine(), "--format must be text or json, was '" + format + "'");
        };
        if (checklist) {
            if (target != null) {
                throw new ParameterException(spec.commandLine(), "--checklist lists every check and examines no server: leave out --target");
            }
            System.out.print(ProductionChecklist.markdown(LockClients.providers()));
            return 0;
        }
        String target = this.target;
        if (target == null) {
            throw new ParameterException(spec.commandLine(), "Missing required option: '--target=URI' (or --checklist)");
        }
        Duration leaseTime = lease.resolve(spec);
        LockBackendProvider provider;
        List<Finding> findings;
        try {
            provider = LockClients.providerFor(target);
            if (backend != null && !LockClients.provider(backend).id().equals(provider.id())) {
                throw new ParameterException(spec.commandLine(), "--target " + Targets.redacted(target) + " is a " + provider.id()
                        + " target, not " + backend);
            }
            findings = LockClients.diagnose(target, OpenOptions.defaults().lockOptions(LockOptions.builder().leaseTime(leaseTime).build()));
        } catch (IllegalArgumentException | UnsupportedOperationException | LockException e) {
            throw new ParameterException(spec.commandLine(), "--target: " + e.getMessage());
        }
        int exit = Finding.exitCode(findings);
        System.out.print(json ? json(target, provider.id(), findings, exit) : text(target, provider.id(), findings, exit));
        return exit;
    }

    private static String text(String target, String backendId, List<Finding> findings, int exit) {
        StringBuilder out = new StringBuilder("distlock doctor: " + Targets.redacted(target) + " (" + backendId + ")\n\n");
        int width = findings.stream().mapToInt(f -> f.check().length()).max().orElse(10);
        for (Finding finding : findings) {
            out.append(String.format(Locale.ROOT, "%-8s %-" + width + "s  %s%n", finding.severity(), finding.check(), finding.observed()));
            out.append(" ".repeat(9)).append("why: ").append(finding.why()).append('\n');
            if (!finding.fix().isEmpty()) {
                out.append(" ".repeat(9)).append("fix: ").append(finding.fix()).append('\n');
            }
        }
        out.append('\n').append("verdict: ").append(exit == 2 ? "UNSAFE" : exit == 1 ? "RISKY" : "OK").append(" (exit ").append(exit).append("): ")
                .append(List.of(Severity.UNSAFE, Severity.RISKY, Severity.UNKNOWN, Severity.OK).stream()
                        .map(s -> findings.stream().filter(f -> f.severity() == s).count() + " " + s.name().toLowerCase(Locale.ROOT))
                        .collect(Collectors.joining(", ")))
                .append('\n');
        return out.toString();
    }

    private static String json(String target, String backendId, List<Finding> findings, int exit) {
        return "{\"target\":" + LocksOutput.quote(Targets.redacted(target)) + ",\"backend\":" + LocksOutput.quote(backendId) + ",\"exitCode\":" + exit
                + ",\"findings\":[" + findings.stream().map(f -> "{\"check\":" + LocksOutput.quote(f.check()) + ",\"severity\":"
                        + LocksOutput.quote(f.severity().name().toLowerCase(Locale.ROOT)) + ",\"observed\":" + LocksOutput.quote(f.observed())
                        + ",\"why\":" + LocksOutput.quote(f.why()) + ",\"fix\":" + LocksOutput.quote(f.fix()) + "}")
                        .collect(Collectors.joining(",")) + "]}\n";
    }
}
