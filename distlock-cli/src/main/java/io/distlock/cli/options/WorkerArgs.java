package io.distlock.cli.options;

import java.util.Map;

/** The arguments a command passes to the worker processes it starts, as {@code --name value} pairs read into a map. */
public final class WorkerArgs {
    private WorkerArgs() {}

    /**
     * Returns the value of the argument {@code name} (without its dashes).
     *
     * @throws IllegalArgumentException naming the argument when it was not passed
     */
    public static String required(Map<String, String> args, String name) {
        String value = args.get(name);
        if (value == null) {
            throw new IllegalArgumentException("worker argument --" + name + " is missing (given: " + args.keySet() + ")");
        }
        return value;
    }
}
