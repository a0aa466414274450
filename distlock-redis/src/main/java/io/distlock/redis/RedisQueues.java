package io.distlock.redis;

import io.distlock.LockException;
import io.distlock.redis.RedisLockScripts.Script;
import io.distlock.spi.AcquireResult;
import io.distlock.spi.OwnerCheck;
import io.distlock.spi.ReleaseSubscription;
import io.lettuce.core.RedisCommandExecutionException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * The queued kinds on Redis (fair locks, read-write locks, semaphores): each call runs one operation of
 * {@code queue.lua} on the three keys of a lock and kind (see the script's header), on the backend's
 * connection, with its replica acknowledgement and error translation.
 */
final class RedisQueues {
    /** The shortest heartbeat window of a waiter, whatever the fallback poll. */
    static final Duration MIN_HEARTBEAT = Duration.ofSeconds(5);

    private final RedisLockScripts scripts;
    private final ReleaseChannels channels;
    private final RedisKeys keys;
    private final RedisErrors errors;
    private final String server;
    private final String notify;
    private final String tokenMemoryMillis;
    private final String heartbeatMillis;
    private final RedisLockBackend.Acknowledger acks;

    RedisQueues(RedisLockScripts scripts, ReleaseChannels channels, RedisKeys keys, RedisErrors errors, String server, boolean cluster,
            Duration heartbeat, RedisLockBackend.Acknowledger acks) {
        this.scripts = scripts;
        this.channels = channels;
        this.keys = keys;
        this.errors = errors;
        this.server = server;
        this.notify = cluster ? "sharded" : "";
        this.tokenMemoryMillis = Long.toString(RedisLockBackend.TOKEN_MEMORY.toMillis());
        this.heartbeatMillis = Long.toString(heartbeat.toMillis());
        this.acks = acks;
    }

    String describe() {
        return server;
    }

    /**
     * A turn of a queued waiter as the script answered it.
     *
     * @param granted whether the caller holds
     * @param token the grant's token; while queued, the last token the lock had issued (a grant published
     *     later has a larger one)
     * @param nextDeadlineMillis while queued, how long until the first holder lease or waiter heartbeat of the
     *     lock runs out (the queue may move then with nobody's call, so nobody's message); 0 if unknown
     */
    record Turn(boolean granted, long token, long nextDeadlineMillis) {
        AcquireResult result() {
            return granted ? AcquireResult.granted(token) : AcquireResult.busy(Duration.ofMillis(nextDeadlineMillis));
        }
    }

    /** Runs an operation that answers {@code {granted, token}}. */
    CompletableFuture<AcquireResult> grant(String kind, int cap, String operation, String name, String... args) {
        return turn(kind, cap, operation, name, args).thenApply(Turn::result);
    }

    /** Runs an operation that answers {@code {granted, token}}, keeping the last token of a queued answer. */
    CompletableFuture<Turn> turn(String kind, int cap, String operation, String name, String... args) {
        return acks.acknowledged(() -> map(this.<List<Object>>run(Script.QUEUE_MULTI, kind, name, cap, operation, args), "acquire", name,
                values -> new Turn((Long) values.get(0) == 1L, (Long) values.get(1), values.size() > 2 ? (Long) values.get(2) : 0L)), "acquire", name);
    }

    /** Runs an operation that answers a number. */
    CompletableFuture<Long> number(String kind, int cap, String operation, String what, String name, String... args) {
        CompletableFuture<Long> reply = run(Script.QUEUE_INTEGER, kind, name, cap, operation, args);
        return map(reply, what, name, Function.identity());
    }

    /** Runs an operation that answers an owner check (renew, release), acknowledged by replicas when asked to. */
    CompletableFuture<OwnerCheck> ownerCheck(String kind, int cap, String operation, String name, String... args) {
        return acks.acknowledged(() -> map(this.<Long>run(Script.QUEUE_INTEGER, kind, name, cap, operation, args), operation, name,
                code -> switch (code.intValue()) {
                    case 1 -> OwnerCheck.OWNER;
                    case 3 -> OwnerCheck.FORCE_UNLOCKED;
                    case 0 -> OwnerCheck.MISSING;
                    default -> throw new IllegalStateException("unknown owner check code " + code);
                }), operation, name);
    }

    /**
     * Starts handing {@code onGrant} every grant message of this lock and kind: {@code owner:token:leaseMs}
     * entries separated by commas.
     */
    CompletableFuture<ReleaseSubscription> watchGrants(String kind, String name, java.util.function.Consumer<String> onGrant) {
        return map(channels.watch(keys.queueState(name, kind) + ":granted", onGrant), "subscribe", name, Function.identity());
    }

    /**
     * Starts handing {@code onGrant} the grant messages of this lock and kind if their channel is subscribed
     * already (a waiter of this client waits on it, or did a moment ago); costs no call to Redis.
     */
    java.util.Optional<ReleaseSubscription> watchGrantsIfSubscribed(String kind, String name, java.util.function.Consumer<String> onGrant) {
        return channels.watchIfSubscribed(keys.queueState(name, kind) + ":granted", onGrant);
    }

    private <T> CompletableFuture<T> run(Script script, String kind, String name, int cap, String operation, String... args) {
        String state = keys.queueState(name, kind);
        String[] keyNames = "release".equals(operation)
                ? new String[] {state, state + ":queue", state + ":deadlines", state + ":released:" + args[0]}
                : new String[] {state, state + ":queue", state + ":deadlines"};
        String[] argv = new String[6 + args.length];
        argv[0] = operation;
        argv[1] = state + ":granted";
        argv[2] = notify;
        argv[3] = tokenMemoryMillis;
        argv[4] = Integer.toString(cap);
        argv[5] = heartbeatMillis;
        System.arraycopy(args, 0, argv, 6, args.length);
        return scripts.run(script, keyNames, argv);
    }

    private <R, T> CompletableFuture<T> map(CompletableFuture<R> reply, String operation, String name, Function<R, T> decode) {
        return reply.handle((value, error) -> {
            if (error != null) {
                Throwable cause = RedisErrors.unwrap(error);
                if (cause instanceof RedisCommandExecutionException refused && String.valueOf(refused.getMessage()).startsWith("DISTLOCK_PERMITS")) {
                    throw new IllegalStateException(operation + " of semaphore '" + name + "' on " + server + ": "
                            + refused.getMessage().substring("DISTLOCK_PERMITS ".length()) + "; every client must use the same number", cause);
                }
                throw errors.translate(error, operation, name);
            }
            try {
                return decode.apply(value);
            } catch (RuntimeException e) {
                throw new LockException(operation + " of lock '" + name + "': unexpected reply from Redis at " + server + ": " + value, e);
            }
        });
    }
}
