package io.distlock.internal;

import io.distlock.LockOptions;
import io.distlock.spi.AcquireResult;
import io.distlock.spi.LockBackend;
import io.distlock.spi.PollingAcquire;
import io.distlock.spi.ReleaseSubscription;
import io.distlock.spi.TokenRanges;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Grants from a {@link PollingAcquire} backend: ask; while busy, sleep until told the lock may be free, then ask again. */
final class PollingGranter implements Granter {
    /*
     * Ask the backend. If busy, subscribe to release notifications once, ask again (a release may have
     * happened before the subscription), and from then on sleep until a notification, the holder's
     * lease end, the fallback poll or the caller's deadline, whichever is first. Waiting for the
     * subscription to take effect is bounded by the caller's deadline too: a notification channel that
     * is down must not make a tryAcquire overshoot its wait by an operation timeout. The generation read
     * before each request makes a notification that arrives during the request count.
     *
     * Cancellation safety: if the caller stops waiting for a request's answer (interrupt, timeout,
     * error), the request may still be granted. It is released under that attempt's owner id as soon
     * as its answer (or failure) is known; compare-and-release makes this safe even when the request
     * never ran, and the owner id is unique to the attempt, so it can never free anyone else's lock.
     */
    private static final Logger log = LoggerFactory.getLogger(PollingGranter.class);

    private final EngineContext engine;
    private final PollingAcquire acquire;
    private final LockBackend backend;
    private final long fallbackPollNanos;

    PollingGranter(EngineContext engine, LockBackend backend, PollingAcquire acquire) {
        this.engine = engine;
        this.acquire = acquire;
        this.backend = backend;
        this.fallbackPollNanos = engine.fallbackPollNanos();
    }

    @Override
    public @Nullable Grant await(LockSlot slot, LockOptions options, long waitNanos) throws InterruptedException {
        EngineClock clock = engine.clock();
        WaitDeadline deadline = WaitDeadline.start(clock, waitNanos);
        String ownerId = engine.ownerIds().next();
        // a range of tokens for the local handoffs this grant may start (CohortHandoff)
        boolean mayHandOn = options.localHandoffs() > 0 && options.autoRenew() && !slot.space.shared && acquire instanceof TokenRanges;
        boolean watching = false;
        try {
            while (true) {
                engine.checkOpen();
                long generation = slot.signal.generation();
                long epoch = engine.session().epoch();
                long sent = clock.nanoTime();
                // only while other threads of this client wait at the gate: a lock nobody here waits for takes one token,
                // so tokens stay dense and an inspection shows the holder's own (a range shows its last)
                int tokens = mayHandOn && slot.gate.hasQueuedThreads() ? options.localHandoffs() + 1 : 1;
                CompletableFuture<AcquireResult> request = tokens == 1 ? acquire.tryAcquire(slot.name, ownerId, options.leaseTime())
                        : ((TokenRanges) acquire).tryAcquire(slot.name, ownerId, options.leaseTime(), tokens);
                AcquireResult result;
                try {
                    result = engine.calls().await(request, "acquire", slot.name);
                } catch (InterruptedException e) {
                    releaseWhenKnown(slot.name, ownerId, request);
                    throw e;
                } catch (RuntimeException e) {
                    releaseWhenKnown(slot.name, ownerId, request);
                    throw engine.closedOr(e);
                }
                if (result.granted()) {
                    return new Grant(ownerId, result.fencingToken(), sent, epoch, options.leaseTime().toNanos(),
                            Math.min(result.lastToken(), result.fencingToken() + tokens - 1), clock.nanoTime(), false);
                }
                long left = deadline.left();
                if (left <= 0) {
                    return null;
                }
                if (!watching) {
                    watching = true;
                    startWatching(slot, left);
                    continue; // ask again: the release may have come before notifications flowed
                }
                long holderLeft = result.holderRemaining().toNanos();
                long sleep = Math.min(left, fallbackPollNanos);
                if (holderLeft > 0) {
                    sleep = Math.min(sleep, holderLeft + TimeUnit.MILLISECONDS.toNanos(1));
                }
                slot.signal.awaitChange(generation, sleep);
            }
        } finally {
            if (watching) {
                slot.signal.release();
            }
        }
    }

    /** Subscribes to release notifications, waiting for them to flow no longer than the operation timeout and the caller's wait. */
    private void startWatching(LockSlot slot, long waitLeftNanos) throws InterruptedException {
        CompletableFuture<ReleaseSubscription> subscription = slot.signal.retain();
        try {
            // a channel that is down (a LISTEN connection reconnecting) must not hold the caller past its wait
            engine.calls().await(subscription, "subscribe", slot.name, waitLeftNanos);
        } catch (RuntimeException e) {
            // Without notifications we still make progress by polling; the next request reports an outage.
            log.debug("release notifications for lock '{}' unavailable, polling instead", slot.name, e);
        }
    }

    private void releaseWhenKnown(String name, String ownerId, CompletableFuture<AcquireResult> request) {
        request.whenComplete((result, error) -> {
            if (error == null && (result == null || !result.granted())) {
                return;
            }
            backend.release(name, ownerId).whenComplete((released, releaseError) -> {
                if (releaseError != null) {
                    log.debug("could not release abandoned attempt on lock '{}'; it expires with its lease", name, releaseError);
                }
            });
        });
    }
}
