package io.distlock.cli;

import io.distlock.cli.bench.BenchCommand;
import io.distlock.cli.check.CheckCommand;
import io.distlock.cli.demo.DemoCommand;
import io.distlock.cli.locks.LocksCommand;
import io.distlock.cli.options.DurationConverter;
import io.distlock.cli.options.OptionValueException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.UnmatchedArgumentException;

/** The {@code distlock} command line. */
@Command(name = "distlock", mixinStandardHelpOptions = true, version = "distlock 0.1.0-SNAPSHOT",
        description = "Distributed locks that tell you when they are lost.",
        subcommands = {DemoCommand.class, BenchCommand.class, CheckCommand.class, LocksCommand.class, DoctorCommand.class, BackendsCommand.class,
                CommandLine.HelpCommand.class},
        footer = {"", "Exit codes: 0 success; 1 the demo's distlock-fenced oversold, the check found a violation or the doctor a risky "
                + "setting; 2 bad options, an unreachable server or an unsafe setting; 3 an inconclusive check; " + DistlockCommand.FAILED + " the command failed while running (the "
                + "message says why; DISTLOCK_DEBUG=1 prints the stack trace)."})
public final class DistlockCommand implements Callable<Integer> {
    /** The exit code of a command that failed while running (a server died under it, a bug). */
    public static final int FAILED = 4;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** Runs the command line and exits with its exit code. */
    public static void main(String[] args) {
        System.exit(newCommandLine().execute(args));
    }

    /**
     * Returns the configured command line (used by tests too): durations read as {@code 500ms}, {@code 30s}
     * or {@code 2m} everywhere; a bad option or an unknown command prints one line that names it (with the
     * nearest command or option) and exits with 2; a failure while running prints one line and exits with
     * {@link #FAILED}.
     */
    public static CommandLine newCommandLine() {
        CommandLine commandLine = new CommandLine(new DistlockCommand());
        commandLine.registerConverter(Duration.class, new DurationConverter());
        // defaults a command sets in code (a mixin created with the command's own default) print as typed
        commandLine.setDefaultValueProvider(arg -> arg.initialValue() instanceof Duration d ? DurationConverter.format(d) : null);
        commandLine.setParameterExceptionHandler((error, args) -> {
            CommandLine failed = error.getCommandLine();
            String message = error.getMessage();
            if (error.getCause() instanceof OptionValueException bad && error.getArgSpec() instanceof OptionSpec option) {
                message = option.longestName() + " " + bad.getMessage();
            }
            if (error instanceof UnmatchedArgumentException unmatched && !unmatched.getUnmatched().isEmpty()) {
                String word = unmatched.getUnmatched().get(0);
                List<String> near = unmatched.getSuggestions();
                message = (word.startsWith("-") ? "unknown option '" : "unknown command or argument '") + word + "'"
                        + (near.isEmpty() ? "" : "; did you mean '" + near.get(0) + "'?");
            }
            failed.getErr().println("distlock: " + message);
            failed.getErr().println("Try '" + failed.getCommandSpec().qualifiedName() + " --help' for the options.");
            return failed.getCommandSpec().exitCodeOnInvalidInput();
        });
        commandLine.setExecutionExceptionHandler((error, failed, parsed) -> {
            failed.getErr().println("distlock " + failed.getCommandName() + ": failed: " + describe(error));
            if (System.getenv("DISTLOCK_DEBUG") != null) {
                error.printStackTrace(failed.getErr());
            } else {
                failed.getErr().println("(DISTLOCK_DEBUG=1 prints the stack trace)");
            }
            return FAILED;
        });
        return commandLine;
    }

    /** An exception and its causes in one line: "RedisConnectionException: Unable to connect ... (caused by: Connection refused)". */
    static String describe(Throwable error) {
        StringBuilder line = new StringBuilder(error.getClass().getSimpleName()).append(": ").append(error.getMessage());
        Throwable cause = error.getCause();
        for (int depth = 0; cause != null && cause != error && depth < 3; depth++, cause = cause.getCause()) {
            if (cause.getMessage() != null && !line.toString().contains(cause.getMessage())) {
                line.append(" (caused by ").append(cause.getClass().getSimpleName()).append(": ").append(cause.getMessage()).append(')');
            }
        }
        return line.toString();
    }

    /** Bare {@code distlock}: the usage on stderr and exit code 2, since no command was named. */
    @Override
    public Integer call() {
        spec.commandLine().getErr().println("distlock: name a command: demo, bench, check, locks, backends (or help COMMAND)");
        spec.commandLine().usage(spec.commandLine().getErr());
        return spec.exitCodeOnInvalidInput();
    }
}
