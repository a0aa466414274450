package io.distlock.cli.locks;

import io.distlock.LockClient;
import io.distlock.LockClients;
import io.distlock.LockException;
import io.distlock.LockInspector;
import io.distlock.LockInspector.LockState;
import io.distlock.LockKind;
import io.distlock.spi.LockBackendProvider;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

/** {@code distlock locks}: list, show and force-unlock the locks on a server whose backend has an inspector, as an operator. */
@Command(name = "locks", mixinStandardHelpOptions = true,
        description = {"Show the locks on a Redis or ZooKeeper server, and force-unlock a stuck one.",
                "",
                "Lists every kind of lock of every client: names, holders with owner id, fencing token and lease left, and "
                + "waiters. Reads the backend's own state; changes nothing but what 'unlock' is told to free."},
        subcommands = {LocksCommand.ListLocks.class, LocksCommand.ShowLock.class, LocksCommand.UnlockLock.class})
public final class LocksCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--target", paramLabel = "URI", scope = ScopeType.INHERIT,
            description = "The server to read: redis://[user:password@]host:port[/db] (rediss:// for TLS, redis-sentinel://host:port#master, "
                    + "redis-cluster://node:port), or zk://host:port[,host:port...]; 'distlock backends' lists every form.")
    @Nullable String target;

    @Option(names = "--namespace", paramLabel = "NAME", scope = ScopeType.INHERIT,
            description = "Where the locks live: the key prefix on Redis (default distlock:), the root node on ZooKeeper (default distlock).")
    @Nullable String namespace;

    @Option(names = "--json", scope = ScopeType.INHERIT, description = "Print JSON on stdout instead of a table.")
    boolean json;

    /** {@code distlock locks} without a subcommand: the usage on stderr and exit code 2. */
    @Override
    public Integer call() {
        spec.commandLine().getErr().println("distlock locks: name a subcommand: list, show NAME or unlock NAME");
        spec.commandLine().usage(spec.commandLine().getErr());
        return spec.exitCodeOnInvalidInput();
    }

    /** Connects to {@code --target}; one line and exit 2 if no backend opens it, it has no inspector, or it cannot be reached. */
    LockClient connect(CommandSpec command) {
        if (target == null) {
            throw new ParameterException(command.commandLine(), "name the server with --target URI (for example --target redis://127.0.0.1:6379)");
        }
        LockBackendProvider provider;
        try {
            provider = LockClients.providerFor(target);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(command.commandLine(), "--target: " + e.getMessage());
        }
        if (!provider.hasInspector()) {
            throw new ParameterException(command.commandLine(), "--target: the " + provider.id() + " backend has no lock inspector; "
                    + "backends with one: " + String.join(", ", LockClients.providers().stream().filter(LockBackendProvider::hasInspector)
                            .map(LockBackendProvider::id).toList()));
        }
        try {
            return provider.open(target, namespace);
        } catch (IllegalArgumentException | LockException e) {
            throw new ParameterException(command.commandLine(), "--target: " + e.getMessage());
        }
    }

    static LockInspector inspector(LockClient client) {
        return client.inspector().orElseThrow(() -> new LockException(client + " has no lock inspector"));
    }

    /** {@code distlock locks list [PATTERN]}. */
    @Command(name = "list", mixinStandardHelpOptions = true, description = "List the locks whose names match PATTERN (* and ?), held or waited for.")
    static final class ListLocks implements Callable<Integer> {
        @ParentCommand
        LocksCommand parent;

        @Spec
        CommandSpec spec;

        @Parameters(index = "0", defaultValue = "*", paramLabel = "PATTERN", description = "Names to list: * any characters, ? one. Default: all.")
        String pattern;

        @Override
        public Integer call() {
            try (LockClient client = parent.connect(spec)) {
                List<LockState> locks = inspector(client).list(pattern);
                System.out.print(parent.json ? LocksOutput.json(locks) : LocksOutput.table(locks));
                return 0;
            } catch (LockException e) {
                System.err.println("distlock: " + e.getMessage());
                return 1;
            }
        }
    }

    /** {@code distlock locks show NAME}. */
    @Command(name = "show", mixinStandardHelpOptions = true, description = "Show every kind of lock named NAME, with all its holders.")
    static final class ShowLock implements Callable<Integer> {
        @ParentCommand
        LocksCommand parent;

        @Spec
        CommandSpec spec;

        @Parameters(index = "0", paramLabel = "NAME", description = "The lock's name, exactly.")
        String name;

        @Override
        public Integer call() {
            try (LockClient client = parent.connect(spec)) {
                List<LockState> locks = inspector(client).show(name);
                if (locks.isEmpty() && !parent.json) {
                    System.out.println("no lock named '" + name + "' is held or waited for");
                    return 0;
                }
                System.out.print(parent.json ? LocksOutput.json(locks) : LocksOutput.table(locks));
                return 0;
            } catch (LockException e) {
                System.err.println("distlock: " + e.getMessage());
                return 1;
            }
        }
    }

    /** {@code distlock locks unlock NAME}. */
    @Command(name = "unlock", mixinStandardHelpOptions = true,
            description = {"Force-unlock the lock NAME, whoever holds it.",
                    "",
                    "Its holders learn it on their next renewal (FORCE_UNLOCKED or SERVER_LOST_LOCK) and stop trusting it. "
                    + "Asks for confirmation unless --yes."})
    static final class UnlockLock implements Callable<Integer> {
        @ParentCommand
        LocksCommand parent;

        @Spec
        CommandSpec spec;

        @Parameters(index = "0", paramLabel = "NAME", description = "The lock's name, exactly.")
        String name;

        @Option(names = "--kind", paramLabel = "lock|fair-lock|read-write-lock", completionCandidates = UnlockableKinds.class,
                description = "Which kind of lock NAME to free, when several kinds have that name. A read-write lock frees its writer and readers "
                        + "in one atomic step. "
                        + "Semaphores are not force-unlocked (their permits come back when their leases end).")
        @Nullable String kind;

        @Option(names = "--yes", description = "Do not ask for confirmation.")
        boolean yes;

        @Override
        public Integer call() throws IOException {
            @Nullable LockKind wanted = wantedKind();
            try (LockClient client = parent.connect(spec)) {
                List<LockState> states = inspector(client).show(name).stream()
                        .filter(state -> state.kind() != LockKind.SEMAPHORE && !state.holders().isEmpty())
                        .filter(state -> wanted == null || state.kind() == wanted)
                        .toList();
                if (states.isEmpty()) {
                    System.out.println("no " + (kind == null ? "lock" : kind) + " named '" + name + "' is held: nothing to unlock");
                    return 0;
                }
                if (states.size() > 1) {
                    throw new ParameterException(spec.commandLine(), "several kinds of lock named '" + name + "' are held ("
                            + String.join(", ", states.stream().map(state -> state.kind().id()).toList()) + "): choose one with --kind");
                }
                LockState state = states.get(0);
                System.out.print(LocksOutput.table(states));
                if (!yes && !confirmed("force-unlock this " + state.kind().id() + "? [y/N] ")) {
                    System.out.println("not unlocked");
                    return 1;
                }
                boolean freed = switch (state.kind()) {
                    case LOCK -> client.getLock(name).forceUnlock();
                    case FAIR_LOCK -> client.getFairLock(name).forceUnlock();
                    case READ_WRITE_LOCK -> client.getReadWriteLock(name).forceUnlock(); // writer and readers in one step
                    case SEMAPHORE -> false;
                };
                System.out.println(freed ? "unlocked '" + name + "'" : "'" + name + "' was free already");
                return 0;
            } catch (LockException e) {
                System.err.println("distlock: " + e.getMessage());
                return 1;
            }
        }

        /**
         * Reads {@code --kind}: null when absent. A semaphore, or a word that names no kind, is refused (exit 2) rather
         * than answered with "nothing to unlock" while a lock of that name may be held.
         */
        private @Nullable LockKind wantedKind() {
            if (kind == null) {
                return null;
            }
            LockKind wanted;
            try {
                wanted = LockKind.fromId(kind);
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), "--kind must be " + unlockableIds() + ", was '" + kind + "'");
            }
            if (wanted == LockKind.SEMAPHORE) {
                throw new ParameterException(spec.commandLine(), "--kind semaphore: semaphores are not force-unlocked; "
                        + "their permits come back when their holders' leases end or are closed");
            }
            return wanted;
        }

        private static boolean confirmed(String question) throws IOException {
            System.out.print(question);
            System.out.flush();
            String answer = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
            return answer != null && (answer.trim().equalsIgnoreCase("y") || answer.trim().equalsIgnoreCase("yes"));
        }
    }

    /** The values {@code unlock --kind} takes, for shell completion. */
    static final class UnlockableKinds implements Iterable<String> {
        @Override
        public java.util.Iterator<String> iterator() {
            return java.util.Arrays.stream(LockKind.values()).filter(kind -> kind != LockKind.SEMAPHORE).map(LockKind::id).iterator();
        }
    }

    /** Returns the kinds {@code force-unlock --kind} takes, for its error message: "lock, fair-lock or read-write-lock". */
    static String unlockableIds() {
        List<String> ids = new java.util.ArrayList<>();
        new UnlockableKinds().forEach(ids::add);
        return String.join(", ", ids.subList(0, ids.size() - 1)) + " or " + ids.get(ids.size() - 1);
    }
}
