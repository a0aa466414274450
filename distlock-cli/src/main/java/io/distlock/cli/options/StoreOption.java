package io.distlock.cli.options;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * Mixin: {@code --store URI}, the Redis that holds the demo's stock and its textbook locks, instead of the redis-server the
 * demo starts. It is the demo's resource, not a lock backend: distlock's own locks go where {@code --backend} or
 * {@code --target} say.
 */
public final class StoreOption {
    private static final String NAME = "--store";

    @Option(names = NAME, paramLabel = "URI",
            description = "The Redis for the stock and the textbook locks (redis://[user:password@]host:port[/db]; the demo uses databases db and db+1) "
                    + "instead of a redis-server the demo starts.")
    @Nullable String uri;

    /** Returns the Redis the user named, if any, unchecked. */
    public Optional<String> uri() {
        return Optional.ofNullable(uri);
    }

    /**
     * Returns the Redis the user named, if any, after checking that the URI parses and the server answers PING.
     *
     * @throws ParameterException (one line, exit code 2) naming the URI (without its password) and what is wrong
     */
    public Optional<String> reachable(CommandSpec command) {
        if (uri == null) {
            return Optional.empty();
        }
        RedisURI parsed;
        try {
            parsed = RedisURI.create(uri);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(command.commandLine(), NAME + ": cannot parse '" + redacted(uri) + "': " + e.getMessage()
                    + " (expected redis://[user:password@]host:port[/db])");
        }
        parsed.setTimeout(Duration.ofSeconds(5));
        RedisClient client = RedisClient.create();
        try (StatefulRedisConnection<String, String> connection = client.connect(parsed)) {
            connection.sync().ping();
        } catch (RuntimeException e) {
            throw new ParameterException(command.commandLine(), NAME + ": cannot reach " + redacted(uri) + ": " + e.getMessage()
                    + (e.getCause() != null && e.getCause().getMessage() != null ? " (" + e.getCause().getMessage() + ")" : ""));
        } finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
        }
        return Optional.of(uri);
    }

    private static String redacted(String uri) {
        return Targets.redacted(uri);
    }
}
