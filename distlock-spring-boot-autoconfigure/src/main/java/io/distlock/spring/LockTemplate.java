package io.distlock.spring;

import io.distlock.DistributedLock;
import io.distlock.Lease;
import io.distlock.LockAcquireTimeoutException;
import io.distlock.LockClient;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;

/**
 * Runs code while holding a distributed lock: the programmatic counterpart of {@link WithLock}, with its options
 * ({@link LockSettings}: wait, lease, minimum hold, what to do on a lost lease) and its metrics.
 *
 * <pre>{@code
 * long sold = locks.execute("stock:" + sku, lease -> {
 *     long token = lease.fencingToken();
 *     return jdbc.update("UPDATE stock SET qty = qty - 1, fence = ? WHERE sku = ? AND qty > 0 AND fence < ?", token, sku, token);
 * });
 * locks.executeIfFree("nightly-report", LockSettings.defaults().minHold(Duration.ofMinutes(50)), lease -> report.run());
 * }</pre>
 *
 * <p>The action runs on the calling thread, with the lease current for {@link LockContext} (and for the fencing guards
 * of distlock-fencing). The lock is released when the action returns or throws, or kept for the rest of the minimum
 * hold (docs/spring-boot.md). Metrics and observations tag a lock by its name up to the first {@code ':'} (a name
 * {@code stock:sku-1} is tagged {@code stock}), so that names built from data do not make a tag value per call: name
 * locks {@code <what>:<key>}, as {@code @WithLock} does.
 */
public final class LockTemplate implements DisposableBean {
    private static final Logger log = LoggerFactory.getLogger(LockTemplate.class);

    private final Supplier<LockClient> client;
    private final Supplier<String> backend;
    private final Supplier<AcquireObservation> observation;
    private final LockSettings defaults;
    private final MinHoldReleases releases;

    /**
     * @param client the lock client, looked up on first use
     * @param backend the client's backend, for observations, e.g. {@code redis}; looked up on first use
     * @param observation observes each acquisition ({@link AcquireObservation#NONE} for none); looked up on first use
     * @param defaults the settings of calls that give none (the starter's: {@code distlock.wait-time})
     */
    public LockTemplate(Supplier<LockClient> client, Supplier<String> backend, Supplier<AcquireObservation> observation, LockSettings defaults) {
        this.client = org.springframework.util.function.SingletonSupplier.of(client);
        this.backend = org.springframework.util.function.SingletonSupplier.of(backend);
        this.observation = org.springframework.util.function.SingletonSupplier.of(observation);
        this.defaults = Objects.requireNonNull(defaults, "defaults");
        this.releases = new MinHoldReleases(this.backend);
    }

    /** Returns a template on {@code client} with the default settings and no observations. */
    public static LockTemplate of(LockClient client) {
        Objects.requireNonNull(client, "client");
        return new LockTemplate(() -> client, () -> "distlock", () -> AcquireObservation.NONE, LockSettings.defaults());
    }

    /** Work run under a lock. */
    @FunctionalInterface
    public interface LockCallback<T> {
        /** Runs with the lock held; {@code lease} carries its fencing token. */
        @Nullable T doWithLock(Lease lease);
    }

    /**
     * Runs {@code action} holding lock {@code name}, waiting for it as the default settings say.
     *
     * @return what the action returned
     * @throws LockAcquireTimeoutException if the lock was not had within the wait
     * @throws InterruptedLockException if the thread was interrupted while it waited
     */
    public <T> @Nullable T execute(String name, LockCallback<T> action) {
        return execute(name, defaults, action);
    }

    /**
     * Runs {@code action} holding lock {@code name}, waiting for it up to {@code settings}' wait time.
     *
     * @return what the action returned
     * @throws LockAcquireTimeoutException if the lock was not had within the wait
     * @throws InterruptedLockException if the thread was interrupted while it waited
     */
    public <T> @Nullable T execute(String name, LockSettings settings, LockCallback<T> action) {
        Optional<Lease> lease = acquire(name, settings, false);
        if (lease.isEmpty()) {
            throw new LockAcquireTimeoutException(name, settings.waitTime());
        }
        return run(lease.get(), settings, action);
    }

    /**
     * Runs {@code action} if lock {@code name} can be had at once (or within {@code settings}' wait time); else runs
     * nothing. For work one instance of many should do.
     *
     * @return what the action returned; empty if it did not run (held elsewhere), or returned null
     * @throws InterruptedLockException if the thread was interrupted while it waited
     */
    public <T> Optional<T> executeIfFree(String name, LockSettings settings, LockCallback<T> action) {
        Optional<Lease> lease = acquire(name, settings, true);
        return lease.map(held -> run(held, settings, action));
    }

    /** As {@link #executeIfFree(String, LockSettings, LockCallback)}, trying once with the default lease. */
    public <T> Optional<T> executeIfFree(String name, LockCallback<T> action) {
        return executeIfFree(name, defaults.waitTime(Duration.ZERO), action);
    }

    private Optional<Lease> acquire(String name, LockSettings settings, boolean skip) {
        Objects.requireNonNull(settings, "settings");
        DistributedLock lock = LeaseOverride.lock(client.get(), name, settings.leaseTime());
        try {
            return ObservedAcquire.run(observation.get(), tagOf(name), backend.get(), skip, () -> lock.tryAcquire(settings.waitTime()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedLockException(name, e);
        }
    }

    private <T> @Nullable T run(Lease lease, LockSettings settings, LockCallback<T> action) {
        long started = System.nanoTime();
        RunningCall call = new RunningCall(Thread.currentThread());
        lease.onLost(lost -> {
            if (call.interruptIfRunning(settings.onLost() == WithLock.OnLost.INTERRUPT)) {
                log.warn("the lease on '{}' was lost while the work ran ({}): {}", lease.lockName(), lost.reason(), lost.getMessage());
            } else {
                log.debug("the lease on '{}' was lost after the work ended, while minHold kept it ({}): {}", lease.lockName(), lost.reason(),
                        lost.getMessage());
            }
        });
        try (LockContext.Scope scope = LockContext.enter(lease)) {
            return action.doWithLock(lease);
        } finally {
            call.finished();
            releases.release(lease, settings.minHold(), started);
        }
    }

    /** Returns the tag of a lock name: up to its first {@code ':'}. */
    static String tagOf(String name) {
        int colon = name.indexOf(':');
        return colon > 0 ? name.substring(0, colon) : name;
    }

    /** Closes now the leases a session-bound backend keeps for their minimum hold: the application is stopping. */
    @Override
    public void destroy() {
        releases.closeAll();
    }

    /** The wait for a lock was interrupted; the thread's interrupt flag is set again. */
    public static final class InterruptedLockException extends io.distlock.LockException {
        private static final long serialVersionUID = 1L;

        InterruptedLockException(String name, InterruptedException cause) {
            super("interrupted while waiting for lock '" + name + "'", cause);
        }
    }
}
