package io.distlock.cli;

import io.distlock.LockClients;
import io.distlock.LockKind;
import io.distlock.cli.locks.LocksOutput;
import io.distlock.servers.deployment.DeploymentType;
import io.distlock.servers.deployment.Deployments;
import io.distlock.spi.LockBackendProvider;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code distlock backends}: the backends on the classpath, with the targets each opens and what each can do, and the
 * deployments the demo and the checker can start ({@code --backend ID}).
 */
@Command(name = "backends", mixinStandardHelpOptions = true,
        description = {"List the backends (--target forms) and deployments (--backend IDs) here.",
                "",
                "For each backend: its id, what it is, the kinds of lock it stores, whether 'distlock locks' can inspect it, and one "
                + "example of each form of target it opens. Then the deployments 'distlock demo' and 'distlock check' can start "
                + "with --backend ID, and why one cannot start here."})
public final class BackendsCommand implements Callable<Integer> {

    @Option(names = "--json", description = "Print JSON on stdout instead of text.")
    boolean json;

    @Override
    public Integer call() {
        List<LockBackendProvider> providers = LockClients.providers();
        List<DeploymentType> deployments = Deployments.all();
        System.out.print(json ? "{\"backends\":" + json(providers) + ",\n\"deployments\":" + deploymentsJson(deployments) + "}\n"
                : text(providers) + "\n" + deploymentsText(deployments));
        return 0;
    }

    static String deploymentsText(List<DeploymentType> deployments) {
        StringBuilder out = new StringBuilder("deployments to start with --backend ID (distlock demo, distlock check):\n");
        int width = deployments.stream().mapToInt(type -> type.id().length()).max().orElse(0);
        for (DeploymentType type : deployments) {
            out.append("  ").append(type.id()).append(" ".repeat(width - type.id().length() + 2)).append(type.description());
            type.unavailable().get().ifPresent(why -> out.append(" (not here: ").append(why).append(')'));
            out.append('\n');
        }
        return out.toString();
    }

    static String deploymentsJson(List<DeploymentType> deployments) {
        return deployments.stream().map(type -> "{\"id\":" + LocksOutput.quote(type.id()) + ",\"description\":" + LocksOutput.quote(type.description())
                        + ",\"kinds\":[" + type.kinds().stream().sorted().map(kind -> LocksOutput.quote(kind.id())).collect(Collectors.joining(","))
                        + "],\"unavailable\":" + type.unavailable().get().map(LocksOutput::quote).orElse("null") + "}")
                .collect(Collectors.joining(",\n ", "[", "]"));
    }

    static String text(List<LockBackendProvider> providers) {
        StringBuilder out = new StringBuilder();
        for (LockBackendProvider provider : providers) {
            out.append(provider.id()).append("  ").append(provider.description()).append('\n');
            out.append("  kinds:     ").append(provider.kinds().stream().sorted().map(LockKind::id).collect(Collectors.joining(", "))).append('\n');
            out.append("  inspector: ").append(provider.hasInspector() ? "yes" : "no").append('\n');
            for (String example : provider.exampleTargets()) {
                out.append("  target:    ").append(example).append('\n');
            }
        }
        return out.toString();
    }

    static String json(List<LockBackendProvider> providers) {
        return providers.stream().map(provider -> "{\"id\":" + LocksOutput.quote(provider.id()) + ",\"description\":" + LocksOutput.quote(provider.description())
                        + ",\"kinds\":[" + provider.kinds().stream().sorted().map(kind -> LocksOutput.quote(kind.id())).collect(Collectors.joining(","))
                        + "],\"inspector\":" + provider.hasInspector()
                        + ",\"schemes\":[" + provider.schemes().stream().map(LocksOutput::quote).collect(Collectors.joining(","))
                        + "],\"targets\":[" + provider.exampleTargets().stream().map(LocksOutput::quote).collect(Collectors.joining(",")) + "]}")
                .collect(Collectors.joining(",\n ", "[", "]"));
    }
}
