package io.distlock.cli.options;

import java.time.Duration;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * Mixin: {@code --lease DURATION}, the lease time of the locks a command runs, with the old
 * {@code --lease-ms MILLIS} spelling as a hidden alias. Each command creates it with its own default
 * and bounds: {@code @Mixin final LeaseOption lease = new LeaseOption(Duration.ofMillis(200), ...)}.
 */
public final class LeaseOption {
    private final Duration min;
    private final Duration max;

    @Option(names = "--lease", paramLabel = "DURATION", description = "Lease time of the locks, e.g. 500ms or 2s. Default: ${DEFAULT-VALUE}.")
    Duration lease;

    @Option(names = "--lease-ms", paramLabel = "MILLIS", hidden = true, description = "The same as --lease, in milliseconds.")
    @Nullable Long leaseMs;

    /** Creates the option with the command's default and the bounds it accepts. */
    public LeaseOption(Duration defaultLease, Duration min, Duration max) {
        this.lease = defaultLease;
        this.min = min;
        this.max = max;
    }

    /**
     * Returns the lease time the user chose (or the default).
     *
     * @throws ParameterException (exit code 2) if it is out of bounds
     */
    public Duration resolve(CommandSpec command) {
        Duration chosen = leaseMs != null ? Duration.ofMillis(leaseMs) : lease;
        if (chosen.compareTo(min) < 0 || chosen.compareTo(max) > 0) {
            throw new ParameterException(command.commandLine(), (leaseMs != null ? "--lease-ms" : "--lease") + " must be between "
                    + DurationConverter.format(min) + " and " + DurationConverter.format(max) + ", was " + DurationConverter.format(chosen));
        }
        return chosen;
    }
}
