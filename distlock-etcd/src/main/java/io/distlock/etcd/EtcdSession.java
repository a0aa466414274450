package io.distlock.etcd;

import io.distlock.spi.SessionEvents.SessionListener;
import io.etcd.jetcd.Lease;
import io.etcd.jetcd.common.exception.ErrorCode;
import io.etcd.jetcd.common.exception.EtcdException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client's one session lease: every queue key of the client is attached to it, so a crashed client's
 * keys vanish when it expires. Kept alive by our own {@code keepAliveOnce} every TTL/3.
 */
final class EtcdSession {
    /*
     * Why not jetcd's streaming keepAlive: it has known stalls and tells an expiry late. Here one
     * scheduler thread ticks every TICK: it sends a keepAliveOnce when TTL/3 has passed since the last
     * one was sent (and none is in flight), and declares the session lost when no keep-alive sent within
     * the last TTL was confirmed. The deadline counts from when the confirmed request was *sent*
     * (System.nanoTime), so it never ends after the server's own expiry: the server counts its TTL from
     * when it *received* the request. A TTL of 0 or NOT_FOUND (the server let the lease expire, or it was
     * revoked) ends the session at once.
     *
     * After a loss the next acquire grants a new lease; grants are serialised (one in flight). The old
     * lease is revoked, best effort, so that a server that still counts it frees its keys now.
     */
    private static final Logger log = LoggerFactory.getLogger(EtcdSession.class);
    static final long TICK_MILLIS = 100;

    private final Lease leases;
    private final Duration requestedTtl;
    private final ScheduledExecutorService scheduler;
    private final LongSupplier nanoTime;
    private final String endpoints;
    private final ReentrantLock lock = new ReentrantLock();
    private volatile @Nullable SessionListener listener;
    private @Nullable CompletableFuture<Long> granting;
    private long leaseId;
    private long ttlNanos;
    private long confirmedUntilNanos;
    private long lastSentNanos;
    private boolean keepAliveInFlight;
    private boolean closed;

    EtcdSession(Lease leases, Duration requestedTtl, ScheduledExecutorService scheduler, LongSupplier nanoTime, String endpoints) {
        this.leases = leases;
        this.requestedTtl = requestedTtl;
        this.scheduler = scheduler;
        this.nanoTime = nanoTime;
        this.endpoints = endpoints;
        scheduler.scheduleWithFixedDelay(this::tick, TICK_MILLIS, TICK_MILLIS, TimeUnit.MILLISECONDS);
    }

    void listener(SessionListener listener) {
        this.listener = listener;
    }

    /** Returns the live lease, granting a new one if there is none. */
    CompletableFuture<Long> lease() {
        lock.lock();
        try {
            if (closed) {
                return CompletableFuture.failedFuture(new IllegalStateException("the etcd session is closed"));
            }
            if (leaseId != 0) {
                return CompletableFuture.completedFuture(leaseId);
            }
            if (granting != null) {
                return granting;
            }
            long sent = nanoTime.getAsLong();
            CompletableFuture<Long> grant = leases.grant(Math.max(1, requestedTtl.toSeconds())).thenApply(response -> {
                lock.lock();
                try {
                    granting = null;
                    if (closed) {
                        leases.revoke(response.getID());
                        throw new CompletionException(new IllegalStateException("the etcd session is closed"));
                    }
                    leaseId = response.getID();
                    ttlNanos = TimeUnit.SECONDS.toNanos(response.getTTL());
                    confirmedUntilNanos = sent + ttlNanos;
                    lastSentNanos = sent;
                    return leaseId;
                } finally {
                    lock.unlock();
                }
            });
            granting = grant;
            grant.whenComplete((id, failure) -> {
                if (failure != null) {
                    lock.lock();
                    try {
                        if (granting == grant) {
                            granting = null;
                        }
                    } finally {
                        lock.unlock();
                    }
                }
            });
            return grant;
        } finally {
            lock.unlock();
        }
    }

    /** Returns the current lease id, 0 if there is none. */
    long currentLease() {
        lock.lock();
        try {
            return leaseId;
        } finally {
            lock.unlock();
        }
    }

    /** Returns the TTL the server granted the current lease (zero before the first grant). */
    Duration ttl() {
        lock.lock();
        try {
            return Duration.ofNanos(ttlNanos);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Sends one keep-alive for {@code id} now; completes with true if the server extended it, false if that
     * lease is gone (the session is then lost).
     */
    CompletableFuture<Boolean> keepAlive(long id) {
        long sent = nanoTime.getAsLong();
        return leases.keepAliveOnce(id).handle((response, failure) -> {
            if (failure == null && response.getTTL() > 0) {
                confirmed(id, sent, TimeUnit.SECONDS.toNanos(response.getTTL()));
                return true;
            }
            if (failure == null || leaseNotFound(failure)) {
                lost(id, "the etcd server at " + endpoints + " let the session lease " + Long.toHexString(id) + " expire");
                return false;
            }
            throw failure instanceof CompletionException completion ? completion : new CompletionException(failure);
        });
    }

    /** Ends the session {@code id} if it is still the current one: told to the engine, revoked best effort. */
    void lost(long id, String reason) {
        lock.lock();
        try {
            if (leaseId != id || id == 0) {
                return;
            }
            leaseId = 0;
            keepAliveInFlight = false;
        } finally {
            lock.unlock();
        }
        log.warn("distlock-etcd: session lost: {}", reason);
        leases.revoke(id).exceptionally(ignored -> null);
        SessionListener current = listener;
        if (current != null) {
            current.lost(reason);
        }
    }

    private void confirmed(long id, long sentNanos, long ttl) {
        lock.lock();
        try {
            if (leaseId == id) {
                ttlNanos = ttl;
                confirmedUntilNanos = Math.max(confirmedUntilNanos, sentNanos + ttl);
            }
        } finally {
            lock.unlock();
        }
    }

    private void tick() {
        long id;
        long now = nanoTime.getAsLong();
        lock.lock();
        try {
            id = leaseId;
            if (closed || id == 0) {
                return;
            }
            if (now - confirmedUntilNanos >= 0) {
                // handled below, outside the lock
            } else if (!keepAliveInFlight && now - lastSentNanos >= ttlNanos / 3) {
                keepAliveInFlight = true;
                lastSentNanos = now;
                sendKeepAlive(id);
                return;
            } else {
                return;
            }
        } finally {
            lock.unlock();
        }
        lost(id, "no keep-alive of the session lease " + Long.toHexString(id) + " was confirmed by etcd at " + endpoints
                + " within its TTL of " + Duration.ofNanos(ttlNanos).toSeconds() + " s");
    }

    private void sendKeepAlive(long id) {
        keepAlive(id).whenComplete((alive, failure) -> {
            lock.lock();
            try {
                keepAliveInFlight = false;
                if (failure != null && leaseId == id) {
                    // unreachable for now: try again in a quarter of a second, well within the TTL
                    lastSentNanos = nanoTime.getAsLong() - ttlNanos / 3 + TimeUnit.MILLISECONDS.toNanos(250);
                }
            } finally {
                lock.unlock();
            }
        });
    }

    static boolean leaseNotFound(Throwable failure) {
        Throwable cause = failure;
        while (cause instanceof CompletionException && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause instanceof EtcdException etcd && etcd.getErrorCode() == ErrorCode.NOT_FOUND;
    }

    /** Stops the keep-alives and revokes the lease (its keys go with it); waits at most {@code timeout}. */
    void close(Duration timeout) {
        long id;
        lock.lock();
        try {
            closed = true;
            id = leaseId;
            leaseId = 0;
        } finally {
            lock.unlock();
        }
        if (id != 0) {
            try {
                leases.revoke(id).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (Exception e) {
                log.debug("distlock-etcd: revoking session lease {} on close failed (it expires by itself): {}", Long.toHexString(id), e.toString());
            }
        }
    }
}
