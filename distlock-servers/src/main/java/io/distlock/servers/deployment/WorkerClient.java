package io.distlock.servers.deployment;

import io.distlock.LockClient;
import io.distlock.LockClients;
import io.distlock.LockListener;
import io.distlock.LockOptions;
import io.distlock.OpenOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Where a check worker connects and how its client is set up, passed on the worker's command line: a target URI the
 * registry opens ({@link LockClients}, backend settings as target parameters), the namespace, and the operation
 * timeout.
 *
 * @param target where the servers are, in the registry's form ({@code redis://127.0.0.1:6390}, {@code zk://...?sessionTimeout=2s})
 * @param namespace where the run's locks live, or null for the backend's default
 * @param operationTimeout how long one backend call may take
 */
public record WorkerClient(String target, @Nullable String namespace, Duration operationTimeout) {
    private static final String TARGET_OPTION = "--target";
    private static final String NAMESPACE_OPTION = "--namespace";
    private static final String TIMEOUT_OPTION = "--operation-timeout-ms";

    /** A client of the backend's default namespace with the default operation timeout. */
    public static WorkerClient of(String target) {
        return new WorkerClient(target, null, Deployment.DEFAULT_OPERATION_TIMEOUT);
    }

    /** Returns the worker arguments that carry this client. */
    public List<String> args() {
        List<String> args = new ArrayList<>(List.of(TARGET_OPTION, target, TIMEOUT_OPTION, Long.toString(operationTimeout.toMillis())));
        if (namespace != null) {
            args.addAll(List.of(NAMESPACE_OPTION, namespace));
        }
        return args;
    }

    /** Reads the client from a worker's arguments (as {@code --name value} pairs without the dashes). */
    public static WorkerClient from(Map<String, String> args) {
        return new WorkerClient(required(args, TARGET_OPTION.substring(2)), args.get(NAMESPACE_OPTION.substring(2)),
                Duration.ofMillis(Long.parseLong(required(args, TIMEOUT_OPTION.substring(2)))));
    }

    private static String required(Map<String, String> args, String name) {
        String value = args.get(name);
        if (value == null) {
            throw new IllegalArgumentException("worker argument --" + name + " is missing (given: " + args.keySet() + ")");
        }
        return value;
    }

    /** Opens the client through the registry, in the worker's JVM, telling {@code listener} about its leases. */
    public LockClient create(LockOptions options, LockListener listener) {
        return LockClients.open(target, OpenOptions.defaults().namespace(namespace).lockOptions(options).operationTimeout(operationTimeout)
                .listener(listener));
    }

    /** Writes a duration as a target parameter takes it ({@code 750ms}). */
    public static String parameter(Duration duration) {
        return duration.toMillis() + "ms";
    }
}
