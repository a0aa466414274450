package io.distlock.cli.check;

import io.distlock.LockClient;
import io.distlock.LockListener;
import io.distlock.LockOptions;
import io.distlock.cli.options.WorkerArgs;
import java.util.List;

/**
 * How a check worker builds its lock client: a factory class, and a target in that factory's format
 * (a Redis URI, a list of nodes, a connect string), passed on the worker's command line.
 *
 * @param factory the factory class (no-argument constructor)
 * @param target where the servers are, as the factory reads it
 */
record WorkerClient(Class<? extends WorkerClientFactory> factory, String target) {
    private static final String FACTORY_OPTION = "--client";
    private static final String TARGET_OPTION = "--target";

    /** Returns the worker arguments that carry this client. */
    List<String> args() {
        return List.of(FACTORY_OPTION, factory.getName(), TARGET_OPTION, target);
    }

    /** Reads the client from a worker's arguments (as {@code --name value} pairs without the dashes). */
    static WorkerClient from(java.util.Map<String, String> args) throws ClassNotFoundException {
        Class<?> type = Class.forName(WorkerArgs.required(args, FACTORY_OPTION.substring(2)));
        return new WorkerClient(type.asSubclass(WorkerClientFactory.class), WorkerArgs.required(args, TARGET_OPTION.substring(2)));
    }

    /** Creates the client, in the worker's JVM. */
    LockClient create(LockOptions options, LockListener listener) throws ReflectiveOperationException {
        return factory.getDeclaredConstructor().newInstance().create(target, options, listener);
    }
}
