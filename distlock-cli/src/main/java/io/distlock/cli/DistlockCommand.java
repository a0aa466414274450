package io.distlock.cli;

import io.distlock.cli.bench.BenchCommand;
import io.distlock.cli.check.CheckCommand;
import io.distlock.cli.demo.DemoCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code distlock} command line. */
@Command(name = "distlock", mixinStandardHelpOptions = true, version = "distlock 0.1.0-SNAPSHOT",
        description = "Distributed locks that tell you when they are lost.",
        subcommands = {DemoCommand.class, BenchCommand.class, CheckCommand.class, CommandLine.HelpCommand.class})
public final class DistlockCommand implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** Runs the command line and exits with its exit code. */
    public static void main(String[] args) {
        System.exit(newCommandLine().execute(args));
    }

    /** Returns the configured command line (used by tests too). */
    public static CommandLine newCommandLine() {
        CommandLine commandLine = new CommandLine(new DistlockCommand());
        commandLine.setParameterExceptionHandler((error, args) -> {
            CommandLine failed = error.getCommandLine();
            failed.getErr().println("distlock: " + error.getMessage());
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
