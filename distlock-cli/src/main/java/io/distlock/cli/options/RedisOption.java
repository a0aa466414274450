package io.distlock.cli.options;

import java.util.Optional;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Option;

/** Mixin: {@code --redis URI}, a Redis to use instead of the embedded redis-server a command starts. */
public final class RedisOption {
    @Option(names = "--redis", paramLabel = "URI",
            description = "Use this Redis (redis://[user:password@]host:port[/db]) instead of starting an embedded redis-server.")
    @Nullable String uri;

    /** Returns the Redis the user named, if any. */
    public Optional<String> uri() {
        return Optional.ofNullable(uri);
    }
}
