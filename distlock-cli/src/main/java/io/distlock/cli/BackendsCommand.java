package io.distlock.cli;

import io.distlock.LockClients;
import io.distlock.LockKind;
import io.distlock.cli.locks.LocksOutput;
import io.distlock.spi.LockBackendProvider;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code distlock backends}: the backends on the classpath, with the targets each opens and what each can do. */
@Command(name = "backends", mixinStandardHelpOptions = true,
        description = {"List the lock backends on the classpath and the --target forms they open.",
                "",
                "For each: its id, what it is, the kinds of lock it stores, whether 'distlock locks' can inspect it, and one "
                + "example of each form of target it opens."})
public final class BackendsCommand implements Callable<Integer> {

    @Option(names = "--json", description = "Print JSON on stdout instead of text.")
    boolean json;

    @Override
    public Integer call() {
        List<LockBackendProvider> providers = LockClients.providers();
        System.out.print(json ? json(providers) : text(providers));
        return 0;
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
                .collect(Collectors.joining(",\n ", "[", "]\n"));
    }
}
