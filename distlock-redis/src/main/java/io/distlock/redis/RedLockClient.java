package io.distlock.redis;

import io.distlock.BackendUnavailableException;
import io.distlock.LockClient;
import io.distlock.LockException;
import io.distlock.LockOptions;
import io.distlock.spi.ClientBuilder;
import io.distlock.spi.ForwardingLockClient;
import io.distlock.spi.LockEngine;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * A {@link LockClient} over N independent Redis masters with the RedLock algorithm: a lock is held
 * when a majority of the nodes granted it within the per-node timeout and with validity left; renewals
 * need a majority too; releases go to every node.
 *
 * <pre>{@code
 * try (LockClient locks = RedLockClient.create("redis://a:6379", "redis://b:6379", "redis://c:6379")) {
 *     try (Lease lease = locks.getLock("orders:42").acquire(Duration.ofSeconds(5))) { ... }
 * }
 * }</pre>
 *
 * <p><b>What it does not give you.</b> RedLock's safety rests on timing: bounded clock drift between the
 * nodes and the client, bounded pauses, and nodes that do not lose a granted lock (a node that restarts
 * without persistence forgets its vote; keep nodes down for longer than the longest lease before they
 * rejoin, or run them with fsync-always persistence). Martin Kleppmann's critique applies in full, and
 * Redisson deprecated its RedLock. The fencing token is the largest of the majority's per-node tokens:
 * it increases across acquisitions when the nodes' clocks differ by less than the time between two
 * acquisitions of the lock, but that is a clock assumption, not a proof. Use a single Redis (or Sentinel
 * with replica acknowledgement) plus fencing, or ZooKeeper, when you need a token you can rely on.
 * See docs/guarantees.md.
 *
 * <p>The client starts when a majority of the nodes is reachable (it tries every node once, in
 * parallel, within the connect timeout); it connects to the others in the background and counts them
 * as down until then. Afterwards any minority may fail.
 */
public final class RedLockClient extends ForwardingLockClient {
    /** The default per-node timeout, 50 ms: an answer later than this does not count. */
    public static final Duration DEFAULT_NODE_TIMEOUT = Duration.ofMillis(50);

    private final String description;

    private RedLockClient(LockClient engine, String description) {
        super(engine);
        this.description = description;
    }

    /**
     * Connects to the nodes with the default settings; returns once a majority is connected.
     *
     * @throws IllegalArgumentException if fewer than 3 URIs are given, or one is malformed
     * @throws BackendUnavailableException if no majority of the nodes can be reached
     */
    public static RedLockClient create(String... uris) {
        return builder().uris(uris == null ? null : List.of(uris)).build();
    }

    /** Returns a builder for a client with non-default settings. */
    public static Builder builder() {
        return new Builder();
    }

    @Override
    public String toString() {
        return "RedLockClient[" + description + "]";
    }

    /** Builds a {@link RedLockClient}; every setter validates its argument at once. */
    public static final class Builder extends ClientBuilder<Builder> {
        private List<String> uris = List.of();
        private String keyPrefix = RedisLockClient.DEFAULT_KEY_PREFIX;
        private Duration nodeTimeout = DEFAULT_NODE_TIMEOUT;
        private Duration connectTimeout = RedisLockClient.DEFAULT_OPERATION_TIMEOUT;

        /** Defaults: {@link LockOptions#defaults()}, operation timeout 3 s. */
        private Builder() {
            super(LockOptions.defaults(), RedisLockClient.DEFAULT_OPERATION_TIMEOUT);
        }

        @Override
        protected Builder self() {
            return this;
        }

        /** Sets the URIs of the independent masters (at least 3; an odd number is best). */
        public Builder uris(@Nullable List<String> uris) {
            if (uris == null || uris.size() < 3) {
                throw new IllegalArgumentException("RedLock needs at least 3 independent Redis masters, got "
                        + (uris == null ? "none" : uris.size()));
            }
            if (uris.stream().distinct().count() != uris.size()) {
                throw new IllegalArgumentException("RedLock nodes must be distinct, got " + uris);
            }
            for (String uri : uris) {
                RedisLockClient.builder().uri(uri); // validates the scheme
            }
            this.uris = List.copyOf(uris);
            return this;
        }

        /** Sets the key prefix on every node (default {@code distlock:}). */
        public Builder keyPrefix(String keyPrefix) {
            this.keyPrefix = RedisKeys.checkPrefix(keyPrefix);
            return this;
        }

        /** Sets how long each node may take to answer one request (default 50 ms); must be well below the lease. */
        public Builder nodeTimeout(Duration nodeTimeout) {
            this.nodeTimeout = positive(nodeTimeout, "nodeTimeout");
            return this;
        }

        /** Sets how long connecting to each node may take (default 3 s). */
        public Builder connectTimeout(Duration connectTimeout) {
            this.connectTimeout = positive(connectTimeout, "connectTimeout");
            return this;
        }

        /**
         * Connects to the nodes in parallel and returns the client when every node has connected or
         * failed to (each within the connect timeout) and a majority is connected; the others are
         * connected in the background, retried until the client is closed, and count as down until then.
         *
         * @throws IllegalArgumentException if no URIs were set, or the node timeout is not well below the lease
         * @throws BackendUnavailableException if no majority of the nodes can be reached within the connect timeout
         * @throws LockException if no majority connects and a node refused the connection (for example, wrong credentials)
         * @throws IllegalStateException if the netty on the classpath cannot carry the Lettuce on it (see {@link RedisLockClient#create})
         */
        public RedLockClient build() {
            if (uris.isEmpty()) {
                throw new IllegalArgumentException("uris must be set");
            }
            RedLockBackend.checkNodeTimeout(nodeTimeout, lockOptions().leaseTime());
            if (nodeTimeout.compareTo(operationTimeout()) >= 0) {
                throw new IllegalArgumentException("nodeTimeout (" + nodeTimeout + ") must be below the operationTimeout (" + operationTimeout() + ")");
            }
            NettyClasspath.check();
            List<RedLockNode> nodes = new ArrayList<>();
            try {
                for (String uri : uris) {
                    RedisConnector.Settings settings = RedisLockClient.builder().uri(uri).keyPrefix(keyPrefix)
                            .operationTimeout(operationTimeout()).connectTimeout(connectTimeout).settings();
                    nodes.add(RedLockNode.connecting(RedisConnector.describe(uri), () -> RedisConnector.open(settings)));
                }
                awaitMajority(nodes);
                RedLockBackend backend = new RedLockBackend(nodes, nodeTimeout, operationTimeout());
                return new RedLockClient(LockEngine.newClient(backend, engineSettings("distlock-redlock")), backend.describe());
            } catch (RuntimeException e) {
                nodes.forEach(RedLockNode::close);
                throw e;
            }
        }

        /**
         * Waits until every node's first connection attempt has an outcome (each is bounded by the connect
         * timeout), or until a majority can no longer connect; throws unless a majority connected.
         */
        private void awaitMajority(List<RedLockNode> nodes) {
            int quorum = RedLockBackend.quorum(nodes.size());
            CompletableFuture<Void> decided = new CompletableFuture<>();
            AtomicInteger connected = new AtomicInteger();
            AtomicInteger failed = new AtomicInteger();
            AtomicInteger outcomes = new AtomicInteger();
            for (RedLockNode node : nodes) {
                node.firstAttempt().whenComplete((ok, error) -> {
                    if (error == null) {
                        connected.incrementAndGet();
                    } else if (failed.incrementAndGet() > nodes.size() - quorum) {
                        decided.complete(null); // a majority can no longer connect
                    }
                    if (outcomes.incrementAndGet() == nodes.size()) {
                        decided.complete(null);
                    }
                });
            }
            try {
                // Lettuce bounds each attempt (connect timeout for the socket, operation timeout for the
                // handshake); this is a safety net, with room for the first client's class loading
                decided.get(connectTimeout.plus(operationTimeout()).multipliedBy(2).plusSeconds(2).toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new BackendUnavailableException("interrupted while connecting to the RedLock nodes", e);
            } catch (ExecutionException | TimeoutException e) {
                // a majority may still have connected; otherwise reported below with each node's reason
            }
            if (connected.get() >= quorum) {
                return;
            }
            List<String> reasons = new ArrayList<>();
            LockException refused = null;
            for (RedLockNode node : nodes) {
                CompletableFuture<Void> attempt = node.firstAttempt();
                if (!attempt.isDone()) {
                    reasons.add(node.describe() + ": no answer yet");
                } else if (attempt.isCompletedExceptionally()) {
                    Throwable cause = attempt.handle((ok, error) -> RedisErrors.unwrap(error)).join();
                    reasons.add(String.valueOf(cause.getMessage()));
                    if (cause instanceof LockException lockException && !(cause instanceof BackendUnavailableException)) {
                        refused = lockException;
                    }
                }
            }
            String message = "RedLock needs a majority of " + quorum + " of its " + nodes.size() + " nodes to start; "
                    + (nodes.size() - connected.get()) + " are not connected: " + String.join("; ", reasons);
            throw refused != null ? new LockException(message, refused) : new BackendUnavailableException(message, null);
        }
    }
}
