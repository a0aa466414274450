package io.distlock.redis;

import io.distlock.BackendUnavailableException;
import io.distlock.LockException;
import io.distlock.LockInspector;
import io.distlock.LockKind;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * Reads the locks under a key prefix straight from Redis: SCAN for the keys, then each lock's key (plain
 * locks) or its queue state (fair, read-write, semaphore; see {@code queue.lua}). Lease times are measured
 * against the server's TIME. Needs SCAN, GET, PTTL, HGETALL, ZRANGE, ZCARD and TIME on the prefix's keys.
 */
final class RedisLockInspector implements LockInspector {
    private static final int SCAN_COUNT = 1000;

    private final RedisClusterAsyncCommands<String, String> commands;
    private final RedisKeys keys;
    private final String prefix;
    private final String server;
    private final Duration timeout;

    RedisLockInspector(RedisClusterAsyncCommands<String, String> commands, String prefix, String server, Duration timeout) {
        this.commands = commands;
        this.keys = RedisKeys.withPrefix(prefix);
        this.prefix = prefix;
        this.server = server;
        this.timeout = timeout;
    }

    @Override
    public List<LockState> list(String pattern) {
        if (pattern == null) {
            throw new IllegalArgumentException("pattern must not be null");
        }
        // SCAN may return a key more than once (Redis says so; seen on a Cluster): read each key once
        Set<String> scanned = new LinkedHashSet<>();
        ScanCursor cursor = ScanCursor.INITIAL;
        ScanArgs args = ScanArgs.Builder.matches(prefix + "{*").limit(SCAN_COUNT);
        do {
            KeyScanCursor<String> page = await(commands.scan(cursor, args).toCompletableFuture(), "SCAN");
            scanned.addAll(page.getKeys());
            cursor = page;
        } while (!cursor.isFinished());
        List<LockState> found = new ArrayList<>();
        for (String key : scanned) {
            LockState state = read(key, pattern);
            if (state != null) {
                found.add(state);
            }
        }
        found.sort(Comparator.comparing(LockState::name).thenComparing(LockState::kind));
        return found;
    }

    /** Returns the lock a key stands for, if it is a lock's main key and its name matches; null otherwise. */
    private @Nullable LockState read(String key, String pattern) {
        int close = key.indexOf('}', prefix.length());
        if (close < 0) {
            return null;
        }
        String name = key.substring(prefix.length() + 1, close).replace('\u001A', '}');
        String suffix = key.substring(close + 1);
        @Nullable LockKind kind = switch (suffix) {
            case "" -> LockKind.LOCK;
            case ":" + RedisQueueStorage.FAIR -> LockKind.FAIR_LOCK;
            case ":" + RedisQueueStorage.READ_WRITE -> LockKind.READ_WRITE_LOCK;
            case ":" + RedisQueueStorage.SEMAPHORE -> LockKind.SEMAPHORE;
            default -> null; // a queue's other keys, release markers
        };
        if (kind == null || !LockInspector.matches(pattern, name)) {
            return null;
        }
        return kind == LockKind.LOCK ? plain(key, name) : queued(key, name, kind);
    }

    private LockState plain(String key, String name) {
        String value = await(commands.get(key).toCompletableFuture(), "GET");
        if (!RedisKeys.isHeldValue(value)) {
            return new LockState(name, LockKind.LOCK, List.of(), -1, 0); // free; its key remembers the last token for a while
        }
        long ttl = await(commands.pttl(key).toCompletableFuture(), "PTTL");
        int sep = value.indexOf(':');
        Holder holder = new Holder(value.substring(sep + 1), Long.parseLong(value.substring(0, sep)),
                ttl >= 0 ? Duration.ofMillis(ttl) : null, "hold");
        return new LockState(name, LockKind.LOCK, List.of(holder), -1, 0);
    }

    private LockState queued(String state, String name, LockKind kind) {
        Map<String, String> fields = await(commands.hgetall(state).toCompletableFuture(), "HGETALL");
        List<ScoredValue<String>> deadlines = await(commands.zrangeWithScores(state + ":deadlines", 0, -1).toCompletableFuture(), "ZRANGE");
        long waiters = await(commands.zcard(state + ":queue").toCompletableFuture(), "ZCARD");
        List<String> time = await(commands.time().toCompletableFuture(), "TIME");
        long nowMillis = Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
        String writer = fields.get("writer");
        List<Holder> holders = new ArrayList<>();
        for (ScoredValue<String> entry : deadlines) {
            String member = entry.getValue();
            if (!member.startsWith("h")) {
                continue; // a waiter's heartbeat
            }
            String owner = member.substring(1);
            long left = (long) entry.getScore() - nowMillis;
            if (left <= 0) {
                continue; // expired: the next call on the lock drops it
            }
            String role = kind == LockKind.SEMAPHORE ? "permit" : kind == LockKind.FAIR_LOCK ? "hold" : owner.equals(writer) ? "write" : "read";
            holders.add(new Holder(owner, Long.parseLong(fields.getOrDefault("t:" + owner, "0")), Duration.ofMillis(left), role));
        }
        int permits = kind == LockKind.SEMAPHORE ? Integer.parseInt(fields.getOrDefault("cap", "0")) : 0;
        return new LockState(name, kind, holders, (int) waiters, permits);
    }

    private <T> T await(CompletableFuture<T> reply, String command) {
        try {
            return reply.get(timeout.toMillis() + 250, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockException("interrupted while reading locks from Redis at " + server, e);
        } catch (ExecutionException e) {
            throw new RedisErrors(server, timeout).translate(e.getCause() == null ? e : e.getCause(), "inspection (" + command + ")", prefix + "*");
        } catch (TimeoutException e) {
            throw new BackendUnavailableException("inspection (" + command + ") got no answer from Redis at " + server + " within " + timeout, e);
        }
    }
}
