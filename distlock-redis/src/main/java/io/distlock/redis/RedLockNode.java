package io.distlock.redis;

import io.distlock.BackendUnavailableException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One master of a RedLock: its backend once connected. Until then every request fails at once as
 * unreachable, so the node counts like a node that is down, while a background thread tries to connect
 * again, with a backoff of up to 5 s, until it succeeds or the node is closed.
 */
final class RedLockNode implements AutoCloseable {
    /*
     * Threads: one connecting thread per node that is not connected yet; it ends once connected. It
     * publishes the backend, then checks for a close that raced it. close() marks the node closed, then
     * takes the backend out. Both take it out with getAndSet(null), so exactly one of them closes it.
     */
    private static final Logger log = LoggerFactory.getLogger(RedLockNode.class);
    private static final long FIRST_BACKOFF_MILLIS = 100;
    private static final long MAX_BACKOFF_MILLIS = 5_000;

    private final String description;
    private final AtomicReference<@Nullable RedisLockBackend> backend = new AtomicReference<>();
    private final CountDownLatch closed = new CountDownLatch(1);
    private final CompletableFuture<Void> firstAttempt = new CompletableFuture<>();
    private volatile @Nullable RuntimeException lastFailure;

    private RedLockNode(String description) {
        this.description = description;
    }

    /** Returns a node over a backend that is already connected. */
    static RedLockNode connected(RedisLockBackend backend) {
        RedLockNode node = new RedLockNode(backend.describe());
        node.backend.set(backend);
        node.firstAttempt.complete(null);
        return node;
    }

    /** Returns a node that connects with {@code connect} on a background thread, retrying until connected or closed. */
    static RedLockNode connecting(String description, Supplier<RedisLockBackend> connect) {
        RedLockNode node = new RedLockNode(description);
        Thread thread = new Thread(() -> node.connectUntilClosed(connect), "distlock-redlock-connect-" + description);
        thread.setDaemon(true);
        thread.start();
        return node;
    }

    private void connectUntilClosed(Supplier<RedisLockBackend> connect) {
        long backoff = FIRST_BACKOFF_MILLIS;
        while (closed.getCount() > 0) {
            try {
                backend.set(connect.get());
                if (closed.getCount() == 0) {
                    closeBackend();
                } else if (lastFailure != null) {
                    log.info("RedLock node {} is connected and takes part again", description);
                }
                firstAttempt.complete(null);
                return;
            } catch (RuntimeException e) {
                if (lastFailure == null) {
                    log.warn("RedLock node {} cannot be reached; it counts as down and is retried in the background: {}", description, e.getMessage());
                }
                lastFailure = e;
                firstAttempt.completeExceptionally(e);
            }
            try {
                closed.await(backoff, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                return;
            }
            backoff = Math.min(backoff * 2, MAX_BACKOFF_MILLIS);
        }
    }

    /** Returns a description without secrets, e.g. {@code redis://host:6379}. */
    String describe() {
        return description;
    }

    /** Completes when the first connection attempt succeeded; fails with its error if it did not. */
    CompletableFuture<Void> firstAttempt() {
        return firstAttempt;
    }

    /** Sends a request to the node's backend; fails at once with BackendUnavailableException while not connected. */
    <T> CompletableFuture<T> call(Function<RedisLockBackend, CompletableFuture<T>> request) {
        RedisLockBackend connected = backend.get();
        if (connected == null) {
            RuntimeException cause = lastFailure;
            return CompletableFuture.failedFuture(new BackendUnavailableException("RedLock node " + description + " is not connected"
                    + (cause == null ? "" : " (" + cause.getMessage() + ")"), cause));
        }
        try {
            return request.apply(connected);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public void close() {
        closed.countDown();
        closeBackend();
    }

    private void closeBackend() {
        RedisLockBackend connected = backend.getAndSet(null);
        if (connected != null) {
            connected.close();
        }
    }

    @Override
    public String toString() {
        return "RedLockNode[" + description + (backend.get() == null ? ", not connected" : "") + "]";
    }
}
