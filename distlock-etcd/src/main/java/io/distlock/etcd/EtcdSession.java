package io.distlock.etcd;

import io.distlock.spi.ClockDrift;
import io.distlock.spi.SessionEvents.SessionListener;
import io.etcd.jetcd.Lease;
import io.etcd.jetcd.common.exception.ErrorCode;
import io.etcd.jetcd.common.exception.EtcdException;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
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
 * keys vanish when it expires. Kept alive by our own {@code keepAliveOnce} every TTL/3, and reported to the
 * engine as in doubt (suspended), confirmed again (reconnected) or lost.
 */
final class EtcdSession {
    /*
     * Why not jetcd's streaming keepAlive: it has known stalls and tells an expiry late. Here one scheduler
     * thread ticks every TICK.
     *
     * What the session guarantees: a keep-alive sent at t and answered with TTL T means etcd keeps the lease
     * until at least t + T (it counts from when it *received* the request), so the lease is certainly alive
     * until the latest such t + T, less the clock drift allowance (ClockDrift, as for every lease): that is
     * `confirmedUntil`. Past it the session may have ended on the server: it is lost for the engine then
     * (every lock of the client SESSION_LOST, every waiter joins again on a new lease), and a TTL of 0 or
     * NOT_FOUND ends it at once. A third of the TTL before it, with no keep-alive confirmed for two thirds of
     * the TTL, the session is in doubt: the engine stops trusting every lease until a keep-alive is confirmed
     * again (SessionEvents.suspended/reconnected; a grant registered meanwhile is untrusted too). A lease is
     * granted from a request sent at s for at most the TTL, so it may outlive what the session has confirmed;
     * being in doubt a third of the TTL early is what keeps the engine from trusting any lease past
     * `confirmedUntil`, with that much room for a late tick.
     *
     * Keep-alives: one is sent when a third of the TTL has passed since the last one was *sent*, whether or
     * not that one was answered, so a stream that never answers cannot stop the renewals (a keep-alive is
     * given up after a TTL, when its answer could no longer confirm anything). A failed one is tried again
     * after RETRY, and while the session is in doubt one goes out every RETRY. Renewals of locks
     * (EtcdLockBackend.renew) send their own, which confirm the session as well.
     *
     * After a loss the next acquire grants a new lease; grants are serialised (one in flight). The engine is
     * told first (so waiters leave the old lease's keys and join again); then the old lease is revoked, best
     * effort, so that a server that still counts it frees its keys now.
     */
    private static final Logger log = LoggerFactory.getLogger(EtcdSession.class);
    static final long TICK_MILLIS = 100;
    private static final long RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(250);

    private final Lease leases;
    private final Duration requestedTtl;
    private final LongSupplier nanoTime;
    private final String endpoints;
    private final ReentrantLock lock = new ReentrantLock();
    private volatile @Nullable SessionListener listener;
    private @Nullable CompletableFuture<Long> granting;
    private long leaseId;
    private long ttlNanos;
    private long confirmedUntilNanos;
    private long nextKeepAliveNanos;
    private boolean inDoubt;
    private boolean closed;

    EtcdSession(Lease leases, Duration requestedTtl, ScheduledExecutorService scheduler, LongSupplier nanoTime, String endpoints) {
        this.leases = leases;
        this.requestedTtl = requestedTtl;
        this.nanoTime = nanoTime;
        this.endpoints = endpoints;
        scheduler.scheduleWithFixedDelay(this::tick, TICK_MILLIS, TICK_MILLIS, TimeUnit.MILLISECONDS);
    }

    void listener(SessionListener listener) {
        this.listener = listener;
    }

    /**
     * Returns the live lease, granting a new one if there is none. A lease whose confirmed time has run out is
     * lost first (the tick may not have seen it yet): no new key is ever put on a lease that may have ended.
     */
    CompletableFuture<Long> lease() {
        long expired;
        lock.lock();
        try {
            if (closed) {
                return CompletableFuture.failedFuture(new IllegalStateException("the etcd session is closed"));
            }
            expired = leaseId != 0 && nanoTime.getAsLong() - confirmedUntilNanos >= 0 ? leaseId : 0;
            if (expired == 0) {
                if (leaseId != 0) {
                    return CompletableFuture.completedFuture(leaseId);
                }
                if (granting != null) {
                    return granting;
                }
                return grant();
            }
        } finally {
            lock.unlock();
        }
        lost(expired, unconfirmed(expired));
        return lease();
    }

    /** Grants a new lease; call under the lock, with no lease and no grant in flight. */
    private CompletableFuture<Long> grant() {
        long sent = nanoTime.getAsLong();
        CompletableFuture<Long> result = new CompletableFuture<>();
        granting = result; // before the request: its answer may come on this thread
        leases.grant(Math.max(1, requestedTtl.toSeconds())).whenComplete((response, failure) -> {
            Throwable refused = failure;
            lock.lock();
            try {
                if (granting == result) {
                    granting = null;
                }
                if (failure == null && closed) {
                    leases.revoke(response.getID());
                    refused = new IllegalStateException("the etcd session is closed");
                } else if (failure == null) {
                    leaseId = response.getID();
                    ttlNanos = TimeUnit.SECONDS.toNanos(response.getTTL());
                    confirmedUntilNanos = ClockDrift.deadlineNanos(sent, Duration.ofNanos(ttlNanos));
                    nextKeepAliveNanos = sent + ttlNanos / 3;
                    inDoubt = false;
                }
            } finally {
                lock.unlock();
            }
            if (refused != null) {
                result.completeExceptionally(refused);
            } else {
                result.complete(response.getID());
            }
        });
        return result;
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
     * lease is gone (the session is then lost). Gives up after a TTL: an answer after that confirms nothing.
     */
    CompletableFuture<Boolean> keepAlive(long id) {
        long sent = nanoTime.getAsLong();
        long timeout = Math.max(ttl().toNanos(), requestedTtl.toNanos());
        return leases.keepAliveOnce(id).orTimeout(timeout, TimeUnit.NANOSECONDS).handle((response, failure) -> {
            if (failure == null && response.getTTL() > 0) {
                confirmed(id, sent, TimeUnit.SECONDS.toNanos(response.getTTL()));
                return true;
            }
            if (failure == null || leaseNotFound(failure)) {
                lost(id, "the etcd server at " + endpoints + " no longer has the session lease " + Long.toHexString(id)
                        + " (it expired or was revoked)");
                return false;
            }
            throw failure instanceof CompletionException completion ? completion : new CompletionException(failure);
        });
    }

    /** Ends the session {@code id} if it is still the current one: the engine is told, then the lease revoked best effort. */
    void lost(long id, String reason) {
        lock.lock();
        try {
            if (leaseId != id || id == 0) {
                return;
            }
            leaseId = 0;
            inDoubt = false;
        } finally {
            lock.unlock();
        }
        log.warn("distlock-etcd: session lost: {}", reason);
        SessionListener current = listener;
        if (current != null) {
            current.lost(reason);
        }
        leases.revoke(id).exceptionally(ignored -> null);
    }

    private void confirmed(long id, long sentNanos, long ttl) {
        lock.lock();
        try {
            if (leaseId != id) {
                return;
            }
            ttlNanos = ttl;
            confirmedUntilNanos = Math.max(confirmedUntilNanos, ClockDrift.deadlineNanos(sentNanos, Duration.ofNanos(ttl)));
            if (inDoubt && !doubtful(nanoTime.getAsLong())) {
                inDoubt = false;
                nextKeepAliveNanos = sentNanos + ttlNanos / 3;
                SessionListener current = listener;
                if (current != null) {
                    current.reconnected(); // under the lock, so that suspended and reconnected reach the engine in order
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /** Whether less than a third of the TTL is confirmed from {@code now}; call under the lock. */
    private boolean doubtful(long now) {
        return confirmedUntilNanos - now < ttlNanos / 3;
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
            if (now - confirmedUntilNanos < 0) {
                if (!inDoubt && doubtful(now)) {
                    inDoubt = true;
                    log.warn("distlock-etcd: no keep-alive of the session lease {} was confirmed by etcd at {} for two thirds of its TTL: "
                            + "its locks are not trusted until one is", Long.toHexString(id), endpoints);
                    SessionListener current = listener;
                    if (current != null) {
                        current.suspended();
                    }
                }
                if (now - nextKeepAliveNanos >= 0) {
                    nextKeepAliveNanos = now + (inDoubt ? RETRY_NANOS : ttlNanos / 3);
                    sendKeepAlive(id);
                }
                return;
            }
        } finally {
            lock.unlock();
        }
        lost(id, unconfirmed(id));
    }

    private String unconfirmed(long id) {
        return "no keep-alive of the session lease " + Long.toHexString(id) + " was confirmed by etcd at " + endpoints
                + " within its TTL of " + Duration.ofNanos(ttlNanos).toSeconds() + " s";
    }

    private void sendKeepAlive(long id) {
        keepAlive(id).whenComplete((alive, failure) -> {
            if (failure == null) {
                return;
            }
            lock.lock();
            try {
                if (leaseId == id) {
                    // unreachable, or no answer: try again soon, well within the TTL
                    long retry = nanoTime.getAsLong() + RETRY_NANOS;
                    if (nextKeepAliveNanos - retry > 0) {
                        nextKeepAliveNanos = retry;
                    }
                }
            } finally {
                lock.unlock();
            }
        });
    }

    /**
     * Whether etcd answered that the lease is unknown: jetcd's own keep-alive reports it as an EtcdException,
     * but a transaction that puts a key on the lease fails with gRPC's NOT_FOUND status as it is.
     */
    static boolean leaseNotFound(Throwable failure) {
        Throwable cause = failure;
        while (cause instanceof CompletionException && cause.getCause() != null) {
            cause = cause.getCause();
        }
        if (cause instanceof EtcdException etcd) {
            return etcd.getErrorCode() == ErrorCode.NOT_FOUND;
        }
        return cause instanceof StatusRuntimeException status && status.getStatus().getCode() == Status.Code.NOT_FOUND
                && String.valueOf(status.getStatus().getDescription()).contains("lease not found");
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
