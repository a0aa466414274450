package io.distlock.redis;

import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The Lua scripts of the Redis backend, run by EVALSHA; on NOSCRIPT (a restarted or flushed server)
 * the script is sent once with EVAL, which also caches it again.
 */
final class RedisLockScripts {
    enum Script {
        ACQUIRE("acquire.lua", ScriptOutputType.MULTI),
        RELEASE("release.lua", ScriptOutputType.INTEGER),
        RENEW("renew.lua", ScriptOutputType.MULTI),
        FORCE_UNLOCK("force-unlock.lua", ScriptOutputType.INTEGER),
        QUEUE_MULTI("queue.lua", ScriptOutputType.MULTI),
        QUEUE_INTEGER("queue.lua", ScriptOutputType.INTEGER);

        final String source;
        final String sha;
        final ScriptOutputType output;

        Script(String resource, ScriptOutputType output) {
            this.source = load(resource);
            this.sha = sha1(source);
            this.output = output;
        }
    }

    private final RedisScriptingAsyncCommands<String, String> commands;

    RedisLockScripts(RedisScriptingAsyncCommands<String, String> commands) {
        this.commands = commands;
    }

    <T> CompletableFuture<T> run(Script script, String[] keys, String... args) {
        CompletableFuture<T> bySha = commands.<T>evalsha(script.sha, script.output, keys, args).toCompletableFuture();
        return bySha.exceptionallyCompose(error -> {
            Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
            if (cause instanceof RedisNoScriptException) {
                return commands.<T>eval(script.source, script.output, keys, args).toCompletableFuture();
            }
            return CompletableFuture.failedFuture(cause);
        });
    }

    private static String load(String resource) {
        try (InputStream in = RedisLockScripts.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("missing script resource " + resource);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read script resource " + resource, e);
        }
    }

    private static String sha1(String source) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-1").digest(source.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is required by the Java platform", e);
        }
    }
}
