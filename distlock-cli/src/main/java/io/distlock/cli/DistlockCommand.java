package io.distlock.cli;

import io.distlock.cli.bench.BenchCommand;
import io.distlock.cli.check.CheckCommand;
import io.distlock.cli.demo.DemoCommand;
import io.distlock.cli.locks.LocksCommand;
import io.distlock.cli.options.DurationConverter;
import io.distlock.cli.options.OptionValueException;
import java.time.Duration;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.OptionSpec;

/** The {@code distlock} command line. */
@Command(name = "distlock", mixinStandardHelpOptions = true, version = "distlock 0.1.0-SNAPSHOT",
        description = "Distributed locks that tell you when they are lost.",
        subcommands = {DemoCommand.class, BenchCommand.class, CheckCommand.class, LocksCommand.class, CommandLine.HelpCommand.class})
public final class DistlockCommand implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** Runs the command line and exits with its exit code. */
    public static void main(String[] args) {
        System.exit(newCommandLine().execute(args));
    }

    /**
     * Returns the configured command line (used by tests too): durations read as {@code 500ms}, {@code 30s}
     * or {@code 2m} everywhere, and a bad option prints one line that names it and exits with 2.
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
            failed.getErr().println("distlock: " + message);
            failed.getErr().println("Try '" + failed.getCommandSpec().qualifiedName() + " --help' for the options.");
            return failed.getCommandSpec().exitCodeOnInvalidInput();
        });
        return commandLine;
    }

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }
}
