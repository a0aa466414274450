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

/** Mixin: {@code --redis URI}, a Redis to use instead of the embedded redis-server a command starts. */
public final class RedisOption {
    @Option(names = "--redis", paramLabel = "URI",
            description = "Use this Redis (redis://[user:password@]host:port[/db]) instead of starting an embedded redis-server.")
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
            throw new ParameterException(command.commandLine(), "--redis: cannot parse '" + redacted(uri) + "': " + e.getMessage()
                    + " (expected redis://[user:password@]host:port[/db])");
        }
        parsed.setTimeout(Duration.ofSeconds(5));
        RedisClient client = RedisClient.create();
        try (StatefulRedisConnection<String, String> connection = client.connect(parsed)) {
            connection.sync().ping();
        } catch (RuntimeException e) {
            throw new ParameterException(command.commandLine(), "--redis: cannot reach " + redacted(uri) + ": " + e.getMessage()
                    + (e.getCause() != null && e.getCause().getMessage() != null ? " (" + e.getCause().getMessage() + ")" : ""));
        } finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
        }
        return Optional.of(uri);
    }

    /** The URI without its password, for messages. */
    public static String redacted(String uri) {
        return uri.replaceAll("//[^@/]*@", "//***@");
    }
}
