package io.distlock.cli.options;

import io.distlock.LockClient;
import io.distlock.LockClients;
import io.distlock.LockException;
import io.distlock.OpenOptions;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/** Opens a {@code --target URI} through the backend registry, turning what goes wrong into one line with exit code 2. */
public final class Targets {
    private Targets() {}

    /**
     * Opens {@code target} with {@code options}.
     *
     * @throws ParameterException naming the option and the problem: no backend opens the URI (the message lists the
     *     schemes that would), it does not parse, or the server cannot be reached or refuses us
     */
    public static LockClient open(CommandSpec command, String option, String target, OpenOptions options) {
        try {
            return LockClients.open(target, options);
        } catch (IllegalArgumentException | LockException e) {
            throw new ParameterException(command.commandLine(), option + ": " + e.getMessage());
        }
    }

    /** Checks that {@code target} opens and its server answers, and closes the client again. */
    public static void check(CommandSpec command, String option, String target, OpenOptions options) {
        open(command, option, target, options).close();
    }

    /** Returns {@code uri} without secrets, for messages: a user and password before {@code @}, a {@code password=} parameter. */
    public static String redacted(String uri) {
        return uri.replaceAll("//[^@/]*@", "//***@").replaceAll("(?i)(password=)[^&;]*", "$1***");
    }
}
