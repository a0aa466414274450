package io.distlock.redis;

import io.distlock.LockException;
import io.distlock.redis.RedisLockScripts.Script;
import io.distlock.spi.AcquireResult;
import io.distlock.spi.OwnerCheck;
import io.distlock.spi.RefusedUse;
import io.distlock.spi.ReleaseSubscription;
import io.lettuce.core.RedisCommandExecutionException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The queued kinds on Redis (fair locks, read-write locks, semaphores): each call runs one operation of
 * {@code queue.lua} on the three keys of a lock and kind (see the script's header), on the backend's
 * connection, with its replica acknowledgement and error translation.
 */
final class RedisQueues {
    /*
     * Replica acknowledgement (minReplicas): no grant may be held before the replicas have it, or a failover
     * could hand the lock to a second holder while the first believes it holds. A grant reaches its holder in
     * one of two ways: the answer of the holder's own call (acquire, check: acknowledged before it is decoded,
     * a shortfall fails the call and the engine leaves the queue, giving the grant up), or a message published
     * when someone else's call granted it (a release, a leave, a renewal that dropped an expired holder). The
     * script cannot wait for replicas, so with acknowledgement on it publishes nothing and answers the message
     * with its result ('defer'); the message is published here once WAIT has confirmed the call, and never if
     * it has not (the waiter then finds the grant with its own acknowledged check). Without acknowledgement the
     * script publishes itself: one round trip.
     */
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
    private final Publisher publisher;

    /** Publishes a grant message on a channel (after the replicas acknowledged the call that made the grant). */
    interface Publisher {
        void publish(String channel, String message);
    }

    RedisQueues(RedisLockScripts scripts, ReleaseChannels channels, RedisKeys keys, RedisErrors errors, String server, boolean cluster,
            Duration heartbeat, RedisLockBackend.Acknowledger acks, Publisher publisher) {
        this.scripts = scripts;
        this.channels = channels;
        this.keys = keys;
        this.errors = errors;
        this.server = server;
        this.notify = acks.enabled() ? "defer" : cluster ? "sharded" : "";
        this.tokenMemoryMillis = Long.toString(RedisLockBackend.TOKEN_MEMORY.toMillis());
        this.heartbeatMillis = Long.toString(heartbeat.toMillis());
        this.acks = acks;
        this.publisher = publisher;
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

    /** Runs an operation that answers {@code {granted, token}}, keeping the last token of a queued answer; acknowledged by replicas when asked to. */
    CompletableFuture<Turn> turn(String kind, int cap, String operation, String name, String... args) {
        return map(this.<List<Object>>call(Script.QUEUE_MULTI, true, kind, name, cap, operation, args), "acquire", name,
                values -> new Turn((Long) values.get(0) == 1L, (Long) values.get(1), values.size() > 2 ? (Long) values.get(2) : 0L));
    }

    /** Runs an operation that answers a number; not acknowledged by replicas, but a grant it made is published only once they have it. */
    CompletableFuture<Long> number(String kind, int cap, String operation, String what, String name, String... args) {
        return map(this.<Long>call(Script.QUEUE_INTEGER, false, kind, name, cap, operation, args), what, name, Function.identity());
    }

    /** Runs an operation that answers an owner check (renew, release), acknowledged by replicas when asked to. */
    CompletableFuture<OwnerCheck> ownerCheck(String kind, int cap, String operation, String name, String... args) {
        return map(this.<Long>call(Script.QUEUE_INTEGER, true, kind, name, cap, operation, args), operation, name,
                code -> switch (code.intValue()) {
                    case 1 -> OwnerCheck.OWNER;
                    case 3 -> OwnerCheck.FORCE_UNLOCKED;
                    case 0 -> OwnerCheck.MISSING;
                    default -> throw new IllegalStateException("unknown owner check code " + code);
                });
    }

    /**
     * Runs one operation of queue.lua and answers what it answered. With replica acknowledgement on, the script
     * defers its grant messages: they are published once WAIT confirms the call, and a call that must be
     * acknowledged ({@code acknowledge}) fails when WAIT does not confirm it (see the design note).
     */
    @SuppressWarnings("unchecked")
    private <T> CompletableFuture<T> call(Script script, boolean acknowledge, String kind, String name, int cap, String operation,
            String... args) {
        if (!acks.enabled()) {
            return run(script, kind, name, cap, operation, args);
        }
        long before = acks.connectsBefore();
        return this.<List<Object>>run(Script.QUEUE_MULTI, kind, name, cap, operation, args).thenCompose(reply -> {
            T answer = (T) reply.get(0);
            String grants = (String) reply.get(1);
            if (!acknowledge && grants.isEmpty()) {
                return CompletableFuture.completedFuture(answer);
            }
            return acks.confirm(before, operation, name).handle((confirmed, shortfall) -> {
                if (shortfall == null && !grants.isEmpty()) {
                    publishByClient(keys.queueState(name, kind) + ":granted", grants);
                }
                if (shortfall != null && acknowledge) {
                    throw shortfall instanceof CompletionException wrapped ? wrapped : new CompletionException(shortfall);
                }
                return answer;
            });
        });
    }

    /** Publishes deferred grants as the script would have: each client's on its own channel (see queue.lua). */
    private void publishByClient(String base, String grants) {
        Map<String, StringJoiner> byClient = new LinkedHashMap<>();
        for (String entry : grants.split(",")) {
            int colon = entry.indexOf(':');
            String client = clientOf(colon < 0 ? entry : entry.substring(0, colon));
            byClient.computeIfAbsent(client, c -> new StringJoiner(",")).add(entry);
        }
        byClient.forEach((client, entries) -> publisher.publish(base + ":" + client, entries.toString()));
    }

    /**
     * The client part of an owner id, as queue.lua reads it: what comes before its last '-' (the engine's owner ids are
     * {@code <client>-<counter>}); an owner id without one is a client of its own.
     */
    static String clientOf(String ownerId) {
        int dash = ownerId.lastIndexOf('-');
        return dash < 0 ? ownerId : ownerId.substring(0, dash);
    }

    /**
     * Starts handing {@code onGrant} every grant message of this lock and kind made to owners of {@code ownerId}'s client
     * ({@link #clientOf}): {@code owner:token:leaseMs} entries separated by commas. Grants to other clients' owners are
     * published on channels of their own, so a grant wakes only the client it is for.
     */
    CompletableFuture<ReleaseSubscription> watchGrants(String kind, String name, String ownerId, java.util.function.Consumer<String> onGrant) {
        return map(channels.watch(grantChannel(kind, name, ownerId), onGrant), "subscribe", name, Function.identity());
    }

    /**
     * As {@link #watchGrants}, if the channel is subscribed already (a waiter of this client waits on it, or did a moment
     * ago); costs no call to Redis.
     */
    java.util.Optional<ReleaseSubscription> watchGrantsIfSubscribed(String kind, String name, String ownerId,
            java.util.function.Consumer<String> onGrant) {
        return channels.watchIfSubscribed(grantChannel(kind, name, ownerId), onGrant);
    }

    private String grantChannel(String kind, String name, String ownerId) {
        return keys.queueState(name, kind) + ":granted:" + clientOf(ownerId);
    }

    private <T> CompletableFuture<T> run(Script script, String kind, String name, int cap, String operation, String... args) {
        String state = keys.queueState(name, kind);
        String[] keyNames = switch (operation) {
            case "release" -> new String[] {state, state + ":queue", state + ":deadlines", state + ":released:" + args[0]};
            case "force" -> new String[] {state, state + ":queue", state + ":deadlines", state + ":forced:" + args[1]};
            default -> new String[] {state, state + ":queue", state + ":deadlines"};
        };
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

    /** The script's reply: {@code DISTLOCK_PERMITS the semaphore is in use with <n> permits, asked with <m>} (queue.lua). */
    private static final Pattern PERMITS_REPLY = Pattern.compile("in use with (\\d+) permits, asked with (\\d+)");

    private RefusedUse permitsRefused(String reply, String operation, String name, Throwable cause) {
        Matcher numbers = PERMITS_REPLY.matcher(reply);
        if (numbers.find()) {
            RefusedUse refused = RefusedUse.permits(operation, name, server, numbers.group(1), Integer.parseInt(numbers.group(2)));
            refused.initCause(cause);
            return refused;
        }
        return new RefusedUse(operation + " of semaphore '" + name + "' on " + server + ": " + reply + "; every client must use the same number", cause);
    }

    private <R, T> CompletableFuture<T> map(CompletableFuture<R> reply, String operation, String name, Function<R, T> decode) {
        return reply.handle((value, error) -> {
            if (error != null) {
                Throwable cause = RedisErrors.unwrap(error);
                if (cause instanceof RedisCommandExecutionException refused && String.valueOf(refused.getMessage()).startsWith("DISTLOCK_PERMITS")) {
                    throw permitsRefused(String.valueOf(refused.getMessage()), operation, name, refused);
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
