package io.distlock.spring;

import io.distlock.Lease;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Releases the lease of work that has ended, keeping its lock until a minimum hold has passed since the work started
 * ({@code minHold} of {@link WithLock} and {@link LockTemplate}).
 */
final class MinHoldReleases {
    /*
     * Where the backend can (Redis, SQL), the lease's renewals stop and the server keeps the lock for the rest of the
     * hold (Lease.expireAfter): it stays held whatever happens to this application meanwhile, and nothing here waits.
     * Session-bound backends (ZooKeeper, etcd) keep a lock only while renewed: the lease is closed by a timer when the
     * hold ends; closing the application context closes those at once (their sessions end with the client anyway).
     */
    private static final Logger log = LoggerFactory.getLogger(MinHoldReleases.class);

    private final Supplier<String> backend;
    private final Set<Delayed> pending = ConcurrentHashMap.newKeySet();
    private volatile @Nullable ScheduledExecutorService timer;

    /** @param backend the client's backend, for the shutdown message; looked up when needed */
    MinHoldReleases(Supplier<String> backend) {
        this.backend = backend;
    }

    /** Closes the lease now, or keeps its lock until {@code minHold} has passed since {@code startedNanos}. */
    void release(Lease lease, Duration minHold, long startedNanos) {
        long left = minHold.toNanos() - (System.nanoTime() - startedNanos);
        if (left <= 0) {
            lease.close();
            return;
        }
        if (lease.expireAfter(Duration.ofNanos(left))) {
            return;
        }
        Delayed delayed = new Delayed(lease);
        pending.add(delayed);
        timer().schedule(delayed, left, TimeUnit.NANOSECONDS);
    }

    /** The application is stopping: closes now the leases a session-bound backend keeps for their minimum hold. */
    void closeAll() {
        ScheduledExecutorService executor = timer;
        if (executor != null) {
            executor.shutdownNow();
        }
        List<Delayed> left = List.copyOf(pending);
        if (!left.isEmpty()) {
            log.info("releasing {} lock(s) before their minHold ends: the application is stopping, and {} keeps a lock only while "
                    + "its client's session lasts", left.size(), backend.get());
        }
        left.forEach(Delayed::run);
    }

    private ScheduledExecutorService timer() {
        ScheduledExecutorService executor = timer;
        if (executor == null) {
            synchronized (this) {
                executor = timer;
                if (executor == null) {
                    ScheduledThreadPoolExecutor created = new ScheduledThreadPoolExecutor(1, runnable -> {
                        Thread thread = new Thread(runnable, "distlock-min-hold");
                        thread.setDaemon(true);
                        return thread;
                    });
                    created.setRemoveOnCancelPolicy(true);
                    timer = executor = created;
                }
            }
        }
        return executor;
    }

    /** A lease closed when its minimum hold has passed, or when the application stops. */
    private final class Delayed implements Runnable {
        private final Lease lease;

        Delayed(Lease lease) {
            this.lease = lease;
        }

        @Override
        public void run() {
            pending.remove(this);
            lease.close();
        }
    }
}
