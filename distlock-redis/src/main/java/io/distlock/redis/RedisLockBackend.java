package io.distlock.redis;

import io.distlock.BackendUnavailableException;
import io.distlock.LockException;
import io.distlock.redis.RedisLockScripts.Script;
import io.distlock.spi.AcquireResult;
import io.distlock.spi.BatchRenewal;
import io.distlock.spi.LockBackend;
import io.distlock.spi.LockKinds;
import io.distlock.spi.OwnerCheck;
import io.distlock.spi.PollingAcquire;
import io.distlock.spi.ReadWriteStorage;
import io.distlock.spi.SemaphoreStorage;
import io.distlock.spi.ReleaseSubscription;
import io.distlock.spi.StateCounts;
import io.distlock.spi.TokenRanges;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The storage operations on Redis: one Lua script each, over one multiplexed connection, plus release
 * notifications over one pub/sub connection.
 */
final class RedisLockBackend implements LockBackend, PollingAcquire, TokenRanges, BatchRenewal, LockKinds, StateCounts {
    /*
     * A lock key holds "<token>:<owner id>" while held. Freeing it leaves a tombstone for at least
     * TOKEN_MEMORY: "<token>::released:<owner id>" after a release, "<token>::forced:<request id>:<owner
     * id>" after a force-unlock. The token keeps fencing tokens increasing; the rest lets an answer be
     * exact when Lettuce re-sends a request after a reconnect (the first one ran, its reply was lost):
     * a replayed release finds its own owner's tombstone and answers OWNER, a replayed force-unlock its
     * own request id and answers true. It also tells the renewals and the release of the owner a
     * force-unlock ended that this is what happened (FORCE_UNLOCKED rather than MISSING). Owner ids must
     * not start with ':', or a hold would read as a tombstone. RedisKeys.isHeldValue and the scripts
     * read values the same way: a part after the first ':' that is empty or starts with ':' is free.
     */
    /** How long a released lock's key remembers its last fencing token. */
    static final Duration TOKEN_MEMORY = Duration.ofSeconds(60);
    private static final int MAX_BATCH = 200;

    private final RedisTransport transport;
    private final RedisClusterAsyncCommands<String, String> commands;
    private final RedisLockScripts scripts;
    private final ReleaseChannels channels;
    private final RedisKeys keys;
    private final RedisErrors errors;
    private final String server;
    private final Duration timeout;
    private final String tokenMemoryMillis = Long.toString(TOKEN_MEMORY.toMillis());
    private final String notify;
    private final ReplicaAcks acks;
    private final RedisQueues queues;

    RedisLockBackend(RedisTransport transport, RedisKeys keys, String server, Duration timeout, ReplicaAcks acks, Duration waiterHeartbeat) {
        this.transport = transport;
        this.commands = transport.commands();
        this.scripts = new RedisLockScripts(commands);
        this.channels = transport.channels();
        this.notify = transport.cluster() ? "sharded" : "";
        this.keys = keys;
        this.server = server;
        this.timeout = timeout;
        this.acks = acks;
        this.errors = new RedisErrors(server, timeout);
        this.queues = new RedisQueues(scripts, channels, keys, errors, server, transport.cluster(), waiterHeartbeat, new Acknowledger() {
            @Override
            public boolean enabled() {
                return acks.enabled();
            }

            @Override
            public long connectsBefore() {
                return connectsIfAcknowledging();
            }

            @Override
            public CompletableFuture<Void> confirm(long connectsBefore, String operation, String name) {
                return acknowledged(connectsBefore, CompletableFuture.completedFuture(null), operation, name);
            }
        }, (channel, message) -> commands.publish(channel, message));
    }

    /** The replica acknowledgement of writes (minReplicas), for the queued kinds. */
    interface Acknowledger {
        /** Returns whether writes must be acknowledged by replicas. */
        boolean enabled();

        /** Returns what {@link #confirm} compares against: to be read before the write is sent. */
        long connectsBefore();

        /**
         * Completes once enough replicas acknowledged this connection's writes since {@code connectsBefore}; fails with
         * {@link BackendUnavailableException} naming the shortfall otherwise.
         */
        CompletableFuture<Void> confirm(long connectsBefore, String operation, String name);
    }

    /** Returns an inspector of the locks under this backend's key prefix. */
    RedisLockInspector inspector(String prefix) {
        return new RedisLockInspector(commands, prefix, server, timeout);
    }

    @Override
    public LockBackend fairLocks() {
        return new RedisQueueStorage(queues, timeout, RedisQueueStorage.FAIR, 'w', 0);
    }

    @Override
    public ReadWriteStorage readWriteLocks() {
        return new RedisQueueKinds(queues, timeout);
    }

    @Override
    public SemaphoreStorage semaphores() {
        return new RedisQueueKinds(queues, timeout);
    }

    @Override
    public String describe() {
        return server;
    }

    @Override
    public Duration operationTimeout() {
        return timeout;
    }

    @Override
    public CompletableFuture<AcquireResult> tryAcquire(String name, String ownerId, Duration leaseTime) {
        return tryAcquire(name, ownerId, leaseTime, 1);
    }

    @Override
    public CompletableFuture<AcquireResult> tryAcquire(String name, String ownerId, Duration leaseTime, int count) {
        CompletableFuture<AcquireResult> refused = TokenRanges.refuseCount(count);
        if (refused != null) {
            return refused;
        }
        if (ownerId.isEmpty() || ownerId.charAt(0) == ':') {
            return CompletableFuture.failedFuture(new IllegalArgumentException(
                    "owner id must be non-empty and must not start with ':' (that marks a tombstone): " + ownerId));
        }
        long connects = connectsIfAcknowledging();
        CompletableFuture<List<Object>> reply = scripts.run(Script.ACQUIRE, new String[] {keys.lockKey(name)},
                ownerId, Long.toString(leaseTime.toMillis()), Integer.toString(count));
        CompletableFuture<AcquireResult> result = map(reply, "acquire", name, values -> {
            long granted = (Long) values.get(0);
            long value = (Long) values.get(1);
            return granted == 1 ? AcquireResult.grantedRange(value, (Long) values.get(2))
                    : AcquireResult.busy(Duration.ofMillis(Math.max(0, value)));
        });
        if (!acks.enabled()) {
            return result;
        }
        return result.thenCompose(acquired -> !acquired.granted() ? CompletableFuture.completedFuture(acquired)
                : replicated(connects).thenCompose(replicas -> {
                    if (replicas >= acks.minReplicas()) {
                        return CompletableFuture.completedFuture(acquired);
                    }
                    // Not acknowledged: a failover could lose it, so it must not count as held. Roll back.
                    return releaseOnMaster(name, ownerId).handle((released, error) -> {
                        throw notAcknowledged("acquire", name, replicas, error == null ? "rolled back" : "rollback failed too, it expires with its lease");
                    });
                }));
    }

    /** The reconnect count to compare after WAIT; read only when writes are acknowledged (not on the default path). */
    private long connectsIfAcknowledging() {
        return acks.enabled() ? transport.connects().get() : 0;
    }

    /**
     * Waits for the replicas after this connection's writes; -1 if WAIT failed, or if the client
     * reconnected since {@code connectsBefore} (the write was sent: then WAIT may run on a new connection
     * that cannot see it, possibly to a new master, and its answer would mean nothing).
     */
    private CompletableFuture<Long> replicated(long connectsBefore) {
        return commands.waitForReplication(acks.minReplicas(), acks.timeout().toMillis()).toCompletableFuture()
                .handle((count, error) -> error != null || count == null || transport.connects().get() != connectsBefore ? -1L : count);
    }

    private BackendUnavailableException notAcknowledged(String operation, String name, long replicas, String outcome) {
        return new BackendUnavailableException(operation + " of lock '" + name + "' on " + server + " was acknowledged by "
                + Math.max(0, replicas) + " replica(s) within " + acks.timeout() + ", fewer than the " + acks.minReplicas()
                + " required (minReplicas); " + outcome, null);
    }

    /** Fails the write unless enough replicas acknowledge it; {@code connectsBefore} is read before the write is sent. */
    private <T> CompletableFuture<T> acknowledged(long connectsBefore, CompletableFuture<T> write, String operation, String name) {
        if (!acks.enabled()) {
            return write;
        }
        return write.thenCompose(value -> replicated(connectsBefore).thenApply(replicas -> {
            if (replicas < acks.minReplicas()) {
                throw notAcknowledged(operation, name, replicas, "the write was made on the master but may not survive a failover");
            }
            return value;
        }));
    }

    /** A lease ends on the server when the time it was last renewed for runs out. */
    @Override
    public boolean leasesEndOnTheServer() {
        return true;
    }

    @Override
    public CompletableFuture<OwnerCheck> renew(String name, String ownerId, Duration leaseTime) {
        return renewAll(List.of(new RenewalRequest(name, ownerId, leaseTime))).thenApply(results -> results.get(0));
    }

    @Override
    public int maxBatchSize() {
        return MAX_BATCH;
    }

    @Override
    public CompletableFuture<List<@Nullable OwnerCheck>> renewAll(List<RenewalRequest> requests) {
        if (!transport.cluster() || requests.size() < 2) {
            return renewInOneScript(requests);
        }
        // A script may only touch keys of one slot: one call per slot, answers put back in request order.
        Map<Integer, List<Integer>> bySlot = new LinkedHashMap<>();
        for (int i = 0; i < requests.size(); i++) {
            bySlot.computeIfAbsent(SlotHash.getSlot(keys.lockKey(requests.get(i).name())), slot -> new ArrayList<>()).add(i);
        }
        OwnerCheck[] renewed = new OwnerCheck[requests.size()];
        List<CompletableFuture<Void>> calls = new ArrayList<>();
        for (List<Integer> indexes : bySlot.values()) {
            List<RenewalRequest> group = indexes.stream().map(requests::get).toList();
            // a failed slot (its shard failing over) leaves nulls, which the watchdog retries; other slots still count
            calls.add(renewInOneScript(group).handle((results, error) -> {
                for (int i = 0; results != null && i < indexes.size(); i++) {
                    renewed[indexes.get(i)] = results.get(i);
                }
                return null;
            }));
        }
        return CompletableFuture.allOf(calls.toArray(new CompletableFuture<?>[0])).thenApply(ignored -> Arrays.asList(renewed));
    }

    private CompletableFuture<List<@Nullable OwnerCheck>> renewInOneScript(List<RenewalRequest> requests) {
        String[] lockKeys = new String[requests.size()];
        String[] args = new String[requests.size() * 2];
        for (int i = 0; i < requests.size(); i++) {
            RenewalRequest request = requests.get(i);
            lockKeys[i] = keys.lockKey(request.name());
            args[2 * i] = request.ownerId();
            args[2 * i + 1] = Long.toString(request.leaseTime().toMillis());
        }
        long connects = connectsIfAcknowledging();
        CompletableFuture<List<Object>> reply = scripts.run(Script.RENEW, lockKeys, args);
        String what = requests.size() == 1 ? requests.get(0).name() : requests.size() + " locks";
        return acknowledged(connects, map(reply, "renewal", what, result -> {
            List<@Nullable OwnerCheck> renewed = new ArrayList<>(result.size());
            for (Object one : result) {
                renewed.add(ownerCheck((Long) one));
            }
            return renewed;
        }), "renewal", what);
    }

    @Override
    public CompletableFuture<OwnerCheck> release(String name, String ownerId) {
        long connects = connectsIfAcknowledging();
        return acknowledged(connects, releaseOnMaster(name, ownerId), "release", name);
    }

    private CompletableFuture<OwnerCheck> releaseOnMaster(String name, String ownerId) {
        CompletableFuture<Long> reply = scripts.run(Script.RELEASE, new String[] {keys.lockKey(name)},
                ownerId, keys.releaseChannel(name), tokenMemoryMillis, notify);
        return map(reply, "release", name, RedisLockBackend::ownerCheck);
    }

    /** Decodes the answer of release.lua and renew.lua (the codes are documented there). */
    private static OwnerCheck ownerCheck(Long code) {
        return switch (code.intValue()) {
            case 1 -> OwnerCheck.OWNER;
            case 2 -> OwnerCheck.OTHER_OWNER;
            case 3 -> OwnerCheck.FORCE_UNLOCKED;
            case 0 -> OwnerCheck.MISSING;
            default -> throw new IllegalStateException("unknown owner check code " + code);
        };
    }

    @Override
    public CompletableFuture<Boolean> forceRelease(String name) {
        long connects = connectsIfAcknowledging();
        // the request id lets a replay of this call (after a reconnect) recognise its own tombstone
        CompletableFuture<Long> reply = scripts.run(Script.FORCE_UNLOCK, new String[] {keys.lockKey(name)},
                keys.releaseChannel(name), tokenMemoryMillis, notify, UUID.randomUUID().toString());
        return acknowledged(connects, map(reply, "forceUnlock", name, released -> released == 1L), "forceUnlock", name);
    }

    @Override
    public CompletableFuture<Boolean> isLocked(String name) {
        return map(commands.get(keys.lockKey(name)).toCompletableFuture(), "isLocked", name, RedisKeys::isHeldValue);
    }

    @Override
    public CompletableFuture<ReleaseSubscription> watchReleases(String name, Runnable onMaybeFree) {
        return map(channels.watch(keys.releaseChannel(name), message -> onMaybeFree.run()), "subscribe", name, Function.identity());
    }

    private <R, T> CompletableFuture<T> map(CompletableFuture<R> reply, String operation, String name, Function<R, T> decode) {
        return reply.handle((value, error) -> {
            if (error != null) {
                throw errors.translate(error, operation, name);
            }
            try {
                return decode.apply(value);
            } catch (RuntimeException e) {
                throw new LockException(operation + " of lock '" + name + "': unexpected reply from Redis at " + server + ": " + value, e);
            }
        });
    }

    @Override
    public void close() {
        transport.closer().run();
    }

    @Override
    public Map<String, Integer> stateCounts() {
        return Map.of("release channels", channels.size());
    }

    @Override
    public void endLingers() {
        channels.endLingers();
    }
}
