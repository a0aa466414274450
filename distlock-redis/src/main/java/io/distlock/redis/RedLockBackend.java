package io.distlock.redis;

import io.distlock.BackendUnavailableException;
import io.distlock.LockOptions;
import io.distlock.spi.AcquireResult;
import io.distlock.spi.ClockDrift;
import io.distlock.spi.LockBackend;
import io.distlock.spi.OwnerCheck;
import io.distlock.spi.PollingAcquire;
import io.distlock.spi.ReleaseSubscription;
import io.distlock.spi.StateCounts;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * RedLock (the algorithm from the Redis documentation) over N independent Redis masters, each a
 * {@link RedisLockBackend} behind a {@link RedLockNode}: an operation succeeds when a majority of nodes agrees within the per-node
 * timeout and, for acquire and renewal, before the lease's validity (lease - elapsed - drift) runs out.
 */
final class RedLockBackend implements LockBackend, PollingAcquire, StateCounts {
    /*
     * Acquire: ask every node at once, each answer bounded by nodeTimeout. A majority of grants with
     * validity left wins; the fencing token is the largest token of the granting nodes. Otherwise
     * release on every node that did not refuse, also those that have not answered or failed (the
     * release runs after their late grant), and report busy with a random backoff so that competing
     * clients do not split the vote again in lockstep. Fewer than a majority of answers is an outage,
     * not "busy".
     *
     * Renew: every node; success when a majority renews within the validity. Release: every node.
     *
     * Each attempt writes under its own node owner id (the engine's owner id plus an attempt number):
     * the late grant of a failed attempt is released under that attempt's id, so it can never delete
     * the grant of a later attempt of the same acquisition on a slow node. The winning attempt's id is
     * remembered for renewals and the release.
     *
     * A node that is not connected yet (RedLockNode) fails every request at once, so it counts exactly
     * like a node that is down. nodeTimeout <= leaseTime / 10 is checked for every lock's options, not
     * only the client's defaults.
     */
    private final ConcurrentHashMap<String, String> heldAs = new ConcurrentHashMap<>();
    private final AtomicLong attempts = new AtomicLong();
    private final List<RedLockNode> nodes;
    private final int quorum;
    private final Duration nodeTimeout;
    private final long nodeTimeoutNanos;
    private final Duration operationTimeout;
    private final String description;

    RedLockBackend(List<RedLockNode> nodes, Duration nodeTimeout, Duration operationTimeout) {
        this.nodes = List.copyOf(nodes);
        this.quorum = quorum(nodes.size());
        this.nodeTimeout = nodeTimeout;
        this.nodeTimeoutNanos = nodeTimeout.toNanos();
        this.operationTimeout = operationTimeout;
        this.description = nodes.stream().map(RedLockNode::describe).collect(Collectors.joining(",", "redlock(", ")"));
    }

    /** Refuses options whose lease is shorter than ten node timeouts, for every lock, not only the default options. */
    @Override
    public void checkOptions(LockOptions options) {
        checkNodeTimeout(nodeTimeout, options.leaseTime());
    }

    /**
     * Throws unless {@code nodeTimeout} is at most a tenth of {@code leaseTime}: the time spent asking the
     * nodes is taken from the lease's validity.
     */
    static void checkNodeTimeout(Duration nodeTimeout, Duration leaseTime) {
        if (nodeTimeout.multipliedBy(10).compareTo(leaseTime) > 0) {
            throw new IllegalArgumentException("nodeTimeout (" + nodeTimeout + ") must be at most a tenth of the lease time (" + leaseTime
                    + "): the time spent asking the nodes is taken from the lease");
        }
    }

    /** Returns how many of {@code nodes} make a majority. */
    static int quorum(int nodes) {
        return nodes / 2 + 1;
    }

    @Override
    public String describe() {
        return description;
    }

    @Override
    public Duration operationTimeout() {
        return operationTimeout;
    }

    /** One node's answer: the value, or the failure (timeout, connection, error reply). */
    private record Answer<T>(@Nullable T value, @Nullable Throwable error) {}

    /** Asks every node, each bounded by the node timeout; completes when all have answered or timed out. */
    private <T> CompletableFuture<List<Answer<T>>> askAll(Function<RedisLockBackend, CompletableFuture<T>> call,
            List<CompletableFuture<T>> raw) {
        List<CompletableFuture<Answer<T>>> answers = new ArrayList<>(nodes.size());
        for (RedLockNode node : nodes) {
            CompletableFuture<T> request = node.call(call);
            raw.add(request);
            answers.add(request.copy().orTimeout(nodeTimeoutNanos, TimeUnit.NANOSECONDS)
                    .handle((value, error) -> new Answer<>(value, error)));
        }
        return CompletableFuture.allOf(answers.toArray(new CompletableFuture<?>[0]))
                .thenApply(ignored -> answers.stream().map(CompletableFuture::join).toList());
    }

    private static String key(String name, String ownerId) {
        return name + '\u0000' + ownerId;
    }

    /** The node owner id the acquisition of {@code ownerId} holds {@code name} under, if it does. */
    private @Nullable String heldAs(String name, String ownerId) {
        return heldAs.get(key(name, ownerId));
    }

    @Override
    public CompletableFuture<AcquireResult> tryAcquire(String name, String ownerId, Duration leaseTime) {
        long start = System.nanoTime();
        String held = heldAs(name, ownerId);
        // a retried request of an acquisition that already won extends that grant; otherwise a fresh attempt id
        String attemptOwner = held != null ? held : ownerId + "." + Long.toString(attempts.incrementAndGet(), 36);
        List<CompletableFuture<AcquireResult>> raw = new ArrayList<>();
        return askAll(node -> node.tryAcquire(name, attemptOwner, leaseTime), raw).thenApply(answers -> {
            int granted = 0;
            int answered = 0;
            long token = 0;
            List<Long> holderLeft = new ArrayList<>();
            for (Answer<AcquireResult> answer : answers) {
                if (answer.value() == null) {
                    continue;
                }
                answered++;
                if (answer.value().granted()) {
                    granted++;
                    token = Math.max(token, answer.value().fencingToken());
                } else {
                    holderLeft.add(answer.value().holderRemaining().toMillis());
                }
            }
            long validity = leaseTime.toNanos() - (System.nanoTime() - start) - ClockDrift.allowanceNanos(leaseTime);
            if (granted >= quorum && validity > 0) {
                heldAs.put(key(name, ownerId), attemptOwner);
                return AcquireResult.granted(token);
            }
            if (held == null) {
                releaseEverywhere(name, attemptOwner, raw);
            }
            if (answered < quorum) {
                throw new BackendUnavailableException("acquire of lock '" + name + "': only " + answered + " of " + nodes.size()
                        + " RedLock nodes answered within the node timeout of " + Duration.ofNanos(nodeTimeoutNanos).toMillis()
                        + " ms; a majority of " + quorum + " is needed (" + failures(answers) + ")", null);
            }
            if (granted >= quorum) {
                // a majority granted, but too late: the validity was eaten by slow nodes
                return AcquireResult.busy(Duration.ofMillis(backoffMillis()));
            }
            holderLeft.sort(Long::compare);
            long holder = holderLeft.isEmpty() ? 0 : holderLeft.get(holderLeft.size() / 2);
            // a split vote (no holder with a majority) retries after a random backoff
            return AcquireResult.busy(Duration.ofMillis(granted > 0 || holder == 0 ? backoffMillis() : holder));
        });
    }

    private static long backoffMillis() {
        return ThreadLocalRandom.current().nextLong(5, 60);
    }

    /**
     * Releases the attempt on every node that may have granted it: those that granted, and those whose
     * answer is late or failed (a request that timed out in Lettuce may still run when a paused node
     * resumes). Only a node that answered "busy" is skipped. The release travels on the node's one
     * connection behind the acquire, so it runs after it however late that is; the attempt's owner id is
     * unique, so compare-and-release never touches anyone else's grant.
     */
    private void releaseEverywhere(String name, String ownerId, List<CompletableFuture<AcquireResult>> raw) {
        for (int i = 0; i < nodes.size(); i++) {
            CompletableFuture<AcquireResult> request = raw.get(i);
            boolean refused = request.isDone() && !request.isCompletedExceptionally() && !request.join().granted();
            if (!refused) {
                nodes.get(i).call(node -> node.release(name, ownerId)).exceptionally(ignored -> null);
            }
        }
    }

    private static String failures(List<? extends Answer<?>> answers) {
        List<String> reasons = new ArrayList<>();
        for (Answer<?> answer : answers) {
            if (answer.error() != null) {
                Throwable cause = answer.error();
                while (cause.getCause() != null && cause.getCause() != cause) {
                    cause = cause.getCause();
                }
                reasons.add(cause instanceof java.util.concurrent.TimeoutException ? "timeout" : String.valueOf(cause.getMessage()));
            }
        }
        return String.join("; ", reasons);
    }

    @Override
    public CompletableFuture<OwnerCheck> renew(String name, String ownerId, Duration leaseTime) {
        long start = System.nanoTime();
        String nodeOwner = heldAs(name, ownerId);
        if (nodeOwner == null) {
            return CompletableFuture.completedFuture(OwnerCheck.MISSING);
        }
        return askAll(node -> node.renew(name, nodeOwner, leaseTime), new ArrayList<>()).thenApply(answers -> {
            int renewed = 0;
            List<OwnerCheck> notHeld = new ArrayList<>();
            for (Answer<OwnerCheck> answer : answers) {
                if (answer.value() != null) {
                    if (answer.value() == OwnerCheck.OWNER) {
                        renewed++;
                    } else {
                        notHeld.add(answer.value());
                    }
                }
            }
            long validity = leaseTime.toNanos() - (System.nanoTime() - start) - ClockDrift.allowanceNanos(leaseTime);
            if (renewed >= quorum && validity > 0) {
                return OwnerCheck.OWNER;
            }
            if (notHeld.size() > nodes.size() - quorum) {
                return mostCommon(notHeld); // a majority no longer has it: lost
            }
            throw new BackendUnavailableException("renewal of lock '" + name + "' reached " + renewed + " of " + nodes.size()
                    + " RedLock nodes in time; " + quorum + " are needed (" + failures(answers) + ")", null);
        }).thenApply(check -> {
            if (check != OwnerCheck.OWNER) {
                // lost for good, and the engine releases nothing for a lease lost this way: forget the grant, or every
                // lost lease stays in this map (the minority of nodes that may still have it let it expire)
                heldAs.remove(key(name, ownerId), nodeOwner);
            }
            return check;
        });
    }

    @Override
    public CompletableFuture<OwnerCheck> release(String name, String ownerId) {
        String nodeOwner = heldAs.remove(key(name, ownerId));
        if (nodeOwner == null) {
            return CompletableFuture.completedFuture(OwnerCheck.MISSING); // never won, or already released
        }
        return askAll(node -> node.release(name, nodeOwner), new ArrayList<>()).thenApply(answers -> {
            int released = 0;
            List<OwnerCheck> notHeld = new ArrayList<>();
            for (Answer<OwnerCheck> answer : answers) {
                if (answer.value() != null) {
                    if (answer.value() == OwnerCheck.OWNER) {
                        released++;
                    } else {
                        notHeld.add(answer.value());
                    }
                }
            }
            if (released >= quorum) {
                return OwnerCheck.OWNER;
            }
            if (notHeld.size() > nodes.size() - quorum) {
                return mostCommon(notHeld); // a majority did not have it any more: it had been lost
            }
            throw new BackendUnavailableException("release of lock '" + name + "' reached " + (released + notHeld.size()) + " of " + nodes.size()
                    + " RedLock nodes; the rest expire with the lease (" + failures(answers) + ")", null);
        });
    }

    /** The answer most nodes gave (ties: the first in enum order). */
    private static OwnerCheck mostCommon(List<OwnerCheck> answers) {
        OwnerCheck best = OwnerCheck.MISSING;
        long bestCount = -1;
        for (OwnerCheck candidate : OwnerCheck.values()) {
            long count = answers.stream().filter(candidate::equals).count();
            if (count > bestCount) {
                best = candidate;
                bestCount = count;
            }
        }
        return best;
    }

    @Override
    public CompletableFuture<Boolean> forceRelease(String name) {
        return askAll(node -> node.forceRelease(name), new ArrayList<>()).thenApply(answers -> {
            requireMajority(answers, "forceUnlock", name);
            return answers.stream().anyMatch(a -> Boolean.TRUE.equals(a.value()));
        });
    }

    @Override
    public CompletableFuture<Boolean> isLocked(String name) {
        return askAll(node -> node.isLocked(name), new ArrayList<>()).thenApply(answers -> {
            requireMajority(answers, "isLocked", name);
            return answers.stream().filter(a -> Boolean.TRUE.equals(a.value())).count() >= quorum;
        });
    }

    private void requireMajority(List<? extends Answer<?>> answers, String operation, String name) {
        long answered = answers.stream().filter(a -> a.error() == null).count();
        if (answered < quorum) {
            throw new BackendUnavailableException(operation + " of lock '" + name + "': only " + answered + " of " + nodes.size()
                    + " RedLock nodes answered; a majority of " + quorum + " is needed (" + failures(answers) + ")", null);
        }
    }

    @Override
    public CompletableFuture<ReleaseSubscription> watchReleases(String name, Runnable onMaybeFree) {
        List<CompletableFuture<ReleaseSubscription>> subscriptions = new ArrayList<>();
        for (RedLockNode node : nodes) {
            subscriptions.add(node.call(backend -> backend.watchReleases(name, onMaybeFree)).exceptionally(error -> null));
        }
        return CompletableFuture.allOf(subscriptions.toArray(new CompletableFuture<?>[0])).thenApply(ignored -> {
            List<ReleaseSubscription> live = subscriptions.stream().map(CompletableFuture::join).filter(s -> s != null).toList();
            if (live.isEmpty()) {
                throw new BackendUnavailableException("no RedLock node accepted a release subscription for lock '" + name + "'", null);
            }
            return () -> live.forEach(ReleaseSubscription::close);
        });
    }

    @Override
    public void close() {
        nodes.forEach(RedLockNode::close);
    }

    @Override
    public Map<String, Integer> stateCounts() {
        return Map.of("held names", heldAs.size());
    }
}
