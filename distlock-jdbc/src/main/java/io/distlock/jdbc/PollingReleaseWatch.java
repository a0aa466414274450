package io.distlock.jdbc;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Release detection by polling, for databases without notifications (MySQL, MariaDB, H2): one thread
 * per client asks, in one query per 100 names, which watched locks are free, and backs off while
 * nothing changes.
 */
final class PollingReleaseWatch extends ReleaseWatch {
    /*
     * The interval starts at MIN_POLL when a watch is added or a lock was seen free, and doubles up to the
     * client's releasePoll while nothing is free, with +-20 % jitter so that many clients do not ask in
     * step. A waiter therefore hears of a release within releasePoll (default 100 ms) at worst, and a
     * client costs the database at most one small indexed query per interval while anyone waits, and
     * nothing when no one does. A poll is an operation like any other, run on the client's workers and
     * their connections (so the client holds no connection beyond its pool for it); while every worker
     * is busy it waits its turn, at most an operation timeout, and waiters hear of a release later.
     */
    private static final Logger log = LoggerFactory.getLogger(PollingReleaseWatch.class);
    private static final long MIN_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(5);
    private static final int BATCH = 100;

    private final SqlConnections connections;
    private final SqlDialect dialect;
    private final long maxPollNanos;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final Thread poller;
    private volatile boolean closed;
    private boolean added;

    PollingReleaseWatch(SqlConnections connections, SqlDialect dialect, Duration releasePoll, String threadPrefix) {
        this.connections = connections;
        this.dialect = dialect;
        this.maxPollNanos = Math.max(MIN_POLL_NANOS, releasePoll.toNanos());
        this.poller = new Thread(this::run, threadPrefix + "-release-poll");
        poller.setDaemon(true);
        poller.start();
    }

    @Override
    protected void watchAdded() {
        lock.lock();
        try {
            added = true;
            changed.signal();
        } finally {
            lock.unlock();
        }
    }

    @Override
    protected CompletableFuture<Void> inEffect() {
        return CompletableFuture.completedFuture(null); // the next poll sees any release after now
    }

    private void run() {
        long interval = MIN_POLL_NANOS;
        while (!closed) {
            List<String> names = new ArrayList<>(watchedNames());
            if (!names.isEmpty()) {
                interval = poll(names) ? MIN_POLL_NANOS : Math.min(maxPollNanos, interval * 2);
            }
            lock.lock();
            try {
                long jittered = (long) (interval * ThreadLocalRandom.current().nextDouble(0.8, 1.2));
                if (!added && !closed) {
                    if (watchedNames().isEmpty()) {
                        changed.await(); // nobody waits: no queries at all
                    } else {
                        changed.awaitNanos(jittered);
                    }
                }
                if (added) {
                    added = false;
                    interval = MIN_POLL_NANOS;
                }
            } catch (InterruptedException e) {
                return;
            } finally {
                lock.unlock();
            }
        }
    }

    /** Asks which of the names are free and tells their watchers; returns whether any was. */
    private boolean poll(List<String> names) {
        boolean any = false;
        for (int from = 0; from < names.size(); from += BATCH) {
            List<String> batch = names.subList(from, Math.min(names.size(), from + BATCH));
            List<byte[]> keys = batch.stream().map(LockTable::key).toList();
            try {
                // one of the client's operations, on its workers: no connection of its own beyond the pool
                List<String> free = connections.submit("release poll", null, connection -> dialect.free(connection, keys)).get();
                free.forEach(this::fire);
                any |= !free.isEmpty();
            } catch (ExecutionException | RuntimeException e) {
                log.debug("release poll on {} failed; waiters fall back to their own polling", connections.describe(), e);
                return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt(); // closed
                return false;
            }
        }
        return any;
    }

    @Override
    public void close() {
        closed = true;
        poller.interrupt();
    }
}
