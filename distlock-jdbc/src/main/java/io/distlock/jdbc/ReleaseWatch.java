package io.distlock.jdbc;

import io.distlock.spi.ReleaseSubscription;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArraySet;

/**
 * Tells waiters when a lock may have become free: one per client, whatever the number of locks and
 * waiters. {@link PostgresReleaseWatch} listens for notifications; {@link PollingReleaseWatch} asks
 * the table about every watched lock in one query.
 */
abstract class ReleaseWatch implements AutoCloseable {
    private final ConcurrentHashMap<String, Set<Runnable>> watchers = new ConcurrentHashMap<>();

    /** Starts telling {@code onMaybeFree} when {@code name} may be free; completes once the watch is in effect. */
    final CompletableFuture<ReleaseSubscription> watch(String name, Runnable onMaybeFree) {
        Runnable entry = onMaybeFree::run; // a new identity per subscription, so the same callback may be watched twice
        watchers.compute(name, (key, set) -> {
            Set<Runnable> all = set == null ? new CopyOnWriteArraySet<>() : set;
            all.add(entry);
            return all;
        });
        watchAdded();
        return inEffect().thenApply(ignored -> () -> watchers.computeIfPresent(name, (key, set) -> {
            set.remove(entry);
            return set.isEmpty() ? null : set;
        }));
    }

    /** Returns how many names are watched now. */
    final int watchedCount() {
        return watchers.size();
    }

    /** Returns the names being watched now. */
    protected final Set<String> watchedNames() {
        return watchers.keySet();
    }

    /** Tells the watchers of {@code name}. */
    protected final void fire(String name) {
        Set<Runnable> set = watchers.get(name);
        if (set != null) {
            set.forEach(Runnable::run);
        }
    }

    /** Tells every watcher (notifications may have been missed). */
    protected final void fireAll() {
        watchers.values().forEach(set -> set.forEach(Runnable::run));
    }

    /** Called after a watch was added. */
    protected abstract void watchAdded();

    /** Returns a future that completes when releases after it are seen. */
    protected abstract CompletableFuture<Void> inEffect();

    @Override
    public abstract void close();
}
