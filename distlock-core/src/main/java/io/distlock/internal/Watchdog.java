package io.distlock.internal;

import io.distlock.spi.BatchRenewal;
import io.distlock.spi.BatchRenewal.RenewalRequest;
import io.distlock.spi.LockBackend;
import io.distlock.spi.OwnerCheck;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Renews leases and detects their loss, for all locks of one client, on one scheduler thread.
 */
final class Watchdog {
    /*
     * Renewals and expiry checks are entries in one priority queue by due time, with a single
     * scheduled tick at the head's due time (not a timer per lock). The first renewal is due an
     * interval after the acquire request was *sent*, like the lease itself: a grant that arrived late
     * (a slow WAIT, a replayed request) is renewed at once rather than after its deadline. A tick also takes every renewal
     * due within a quarter of its interval, so leases acquired around the same time are renewed
     * together; renewing a little early costs nothing. Only a due renewal takes others early (a tick for an expiry check
     * would cut thin slices off the next batch), and expiry checks not yet due among them are stepped over. A tick's leases go to the storage of their kind;
     * a BatchRenewal storage takes them in chunks of maxBatchSize, one round trip each.
     *
     * Loss detection does not depend on renewals succeeding: an expiry check at the lease's local
     * deadline (request send time + lease - drift) declares it lost unless a renewal confirmed before
     * then moved the deadline (the check then re-queues itself at the new deadline). A lease that
     * is renewed gets its expiry check only when its first renewal goes out: a lock released before
     * that (the common case: held for microseconds) costs one queue insertion and no timer.
     *
     * Stopping an acquisition only flags it; its entries are dropped when they come due, or all at
     * once when stale entries outnumber live ones (amortised O(1) per stop).
     */
    private static final Logger log = LoggerFactory.getLogger(Watchdog.class);
    private static final int PURGE_AT_LEAST = 1024;

    private final EngineClock clock;
    private final LeaseLosses losses;
    private final ReentrantLock lock = new ReentrantLock();
    private final PriorityQueue<Entry> queue = new PriorityQueue<>((a, b) -> Long.compare(a.dueNanos - b.dueNanos, 0));
    private EngineClock.@Nullable Timer tick;
    private long tickAtNanos;
    private int stale;
    /** The widest early window (a quarter of the interval) of any renewal queued so far: how far a tick looks ahead. */
    private long widestWindowNanos;

    Watchdog(EngineClock clock, LeaseLosses losses) {
        this.losses = losses;
        this.clock = clock;
    }

    /** Starts watching a new acquisition: renewals if its options ask for them, else an expiry check. */
    void start(Acquisition acquisition) {
        lock.lock();
        try {
            acquisition.watched = true;
            // a grant with a short first lease is renewed within the first third of it (a short hold is
            // released before that, and never pays for the renewal), then on the usual schedule
            long shortLease = Math.max(1, acquisition.validUntilNanos() - acquisition.sentNanos);
            if (acquisition.options.autoRenew()) {
                long interval = acquisition.options.renewInterval().toNanos();
                long first = acquisition.claimFirst ? Math.min(interval, shortLease / 3) : interval;
                add(new Entry(acquisition, acquisition.sentNanos + first, interval, false));
            } else {
                if (acquisition.claimFirst) {
                    add(new Entry(acquisition, acquisition.sentNanos + shortLease / 3, shortLease, true)); // once, for the full lease
                }
                addExpiryCheck(acquisition);
            }
        } finally {
            lock.unlock();
        }
    }

    /** Stops renewals and the expiry check of an acquisition. */
    void stop(Acquisition acquisition) {
        lock.lock();
        try {
            if (!acquisition.watched) {
                return;
            }
            acquisition.watched = false;
            stale += acquisition.queuedEntries;
            if (stale >= PURGE_AT_LEAST && stale > queue.size() / 2) {
                queue.removeIf(entry -> !entry.acquisition.watched);
                stale = 0;
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * A renewal by hand may have moved the deadline earlier: an expiry check is queued for it, and the later one queued
     * before goes stale (it is dropped when due, so that repeated renewals by hand do not pile up checks).
     */
    void deadlineMoved(Acquisition acquisition) {
        lock.lock();
        try {
            if (acquisition.watched && (!acquisition.expiryQueued || acquisition.validUntilNanos() - acquisition.expiryDueNanos < 0)) {
                acquisition.expiryQueued = false;
                addExpiryCheck(acquisition);
            }
        } finally {
            lock.unlock();
        }
    }

    /** Queues the acquisition's expiry check unless one is queued; call under the lock. */
    private void addExpiryCheck(Acquisition acquisition) {
        if (!acquisition.expiryQueued) {
            acquisition.expiryQueued = true;
            acquisition.expiryDueNanos = acquisition.validUntilNanos();
            add(new Entry(acquisition, acquisition.expiryDueNanos, Entry.EXPIRY, false));
        }
    }

    private void enqueue(Entry entry) {
        lock.lock();
        try {
            if (entry.acquisition.watched) {
                add(entry);
            }
        } finally {
            lock.unlock();
        }
    }

    /** Call under the lock. */
    private void add(Entry entry) {
        if (entry.intervalNanos != Entry.EXPIRY) {
            widestWindowNanos = Math.max(widestWindowNanos, entry.intervalNanos / 4);
        }
        queue.add(entry);
        entry.acquisition.queuedEntries++;
        if (tick == null || entry.dueNanos - tickAtNanos < 0) {
            rescheduleTick();
        }
    }

    private void rescheduleTick() {
        Entry head = queue.peek();
        if (tick != null) {
            tick.cancel();
            tick = null;
        }
        if (head == null) {
            return;
        }
        tickAtNanos = head.dueNanos;
        tick = clock.schedule(this::tick, head.dueNanos - clock.nanoTime());
    }

    private void tick() {
        List<Entry> renewals = new ArrayList<>();
        List<Acquisition> expired = new ArrayList<>();
        lock.lock();
        try {
            // `tick` is left as it is: rescheduleTick() below cancels it if an add() replaced this run's
            // future meanwhile (cancelling the running one is harmless), so there is only ever one chain.
            long now = clock.nanoTime();
            List<Entry> notYet = List.of();
            Entry head;
            boolean renewing = false; // a renewal is due: renewals due within a quarter of their interval go with it
            while ((head = queue.peek()) != null) {
                boolean take = head.dueNanos - now <= 0
                        || renewing && head.intervalNanos != Entry.EXPIRY && head.dueNanos - (now + head.intervalNanos / 4) <= 0;
                if (!take) {
                    // Early renewals only ride along with a renewal that is due: a tick for an expiry check that took
                    // them too would cut thin slices off the next batch. And an expiry check not yet due does not end
                    // the scan while renewals behind it may go: cut there, the batches of leases renewed together
                    // would drift apart into batches of one or two.
                    if (!renewing || head.dueNanos - (now + widestWindowNanos) > 0) {
                        break;
                    }
                    queue.poll();
                    if (notYet.isEmpty()) {
                        notYet = new ArrayList<>();
                    }
                    notYet.add(head);
                    continue;
                }
                queue.poll();
                Acquisition acquisition = head.acquisition;
                acquisition.queuedEntries--;
                if (!acquisition.watched) {
                    stale = Math.max(0, stale - 1);
                    continue;
                }
                if (acquisition.state() != Acquisition.State.ACTIVE) {
                    continue;
                }
                if (head.intervalNanos == Entry.EXPIRY) {
                    if (head.dueNanos != acquisition.expiryDueNanos) {
                        continue; // stale: an earlier check replaced it (deadlineMoved)
                    }
                    acquisition.expiryQueued = false;
                    if (now - acquisition.validUntilNanos() >= 0) {
                        expired.add(acquisition);
                    } else {
                        addExpiryCheck(acquisition); // a renewal moved the deadline
                    }
                } else {
                    renewing = true;
                    renewals.add(head);
                    addExpiryCheck(acquisition); // from now on the lease depends on renewals arriving
                }
            }
            queue.addAll(notYet); // still counted in their acquisitions' queuedEntries
            rescheduleTick();
        } finally {
            lock.unlock();
        }
        for (Acquisition acquisition : expired) {
            try {
                losses.expired(acquisition);
            } catch (RuntimeException e) {
                log.error("reporting the loss of lock '{}' failed", acquisition.lockName(), e); // the others are still told
            }
        }
        if (!renewals.isEmpty()) {
            try {
                renew(renewals);
            } catch (RuntimeException e) {
                log.debug("renewals could not be sent, retrying", e);
                for (Entry entry : renewals) {
                    enqueue(new Entry(entry.acquisition, clock.nanoTime() + retryDelay(entry), entry.intervalNanos, entry.once));
                }
            }
        }
    }

    private void renew(List<Entry> due) {
        // leases of one kind share a storage; each storage renews its own, batched where it can
        Map<LockBackend, List<Entry>> byStorage = new IdentityHashMap<>(2);
        for (Entry entry : due) {
            byStorage.computeIfAbsent(entry.acquisition.backend(), b -> new ArrayList<>()).add(entry);
        }
        byStorage.forEach(this::renew);
    }

    private void renew(LockBackend backend, List<Entry> due) {
        if (backend instanceof BatchRenewal batch && due.size() > 1) {
            for (int from = 0; from < due.size(); from += batch.maxBatchSize()) {
                List<Entry> chunk = due.subList(from, Math.min(due.size(), from + batch.maxBatchSize()));
                List<RenewalRequest> requests = new ArrayList<>(chunk.size());
                for (Entry entry : chunk) {
                    Acquisition a = entry.acquisition;
                    requests.add(new RenewalRequest(a.lockName(), a.ownerId, a.options.leaseTime()));
                }
                long sent = clock.nanoTime();
                List<Entry> entries = List.copyOf(chunk);
                batch.renewAll(requests).whenCompleteAsync((results, error) -> {
                    for (int i = 0; i < entries.size(); i++) {
                        completed(entries.get(i), sent, results == null ? null : results.get(i), error);
                    }
                }, clock.timerThread());
            }
        } else {
            for (Entry entry : due) {
                Acquisition a = entry.acquisition;
                long sent = clock.nanoTime();
                CompletableFuture<OwnerCheck> result = backend.renew(a.lockName(), a.ownerId, a.options.leaseTime());
                result.whenCompleteAsync((found, error) -> completed(entry, sent, found, error), clock.timerThread());
            }
        }
    }

    private void completed(Entry entry, long sentNanos, @Nullable OwnerCheck found, @Nullable Throwable error) {
        Acquisition acquisition = entry.acquisition;
        if (!acquisition.watched || acquisition.state() != Acquisition.State.ACTIVE) {
            return;
        }
        if (error != null || found == null) {
            long retryIn = retryDelay(entry);
            log.debug("renewal of lock '{}' failed, retrying in {} ms", acquisition.lockName(), retryIn / 1_000_000, error);
            acquisition.renewalFailed(error != null ? error : new IllegalStateException("the backend gave no answer"));
            enqueue(new Entry(acquisition, clock.nanoTime() + retryIn, entry.intervalNanos, entry.once));
            return;
        }
        if (found != OwnerCheck.OWNER) {
            losses.found(acquisition, found, "a renewal");
            return;
        }
        if (!acquisition.confirmRenewal(sentNanos)) {
            losses.confirmedTooLate(acquisition); // confirmed after the lease's deadline had passed: it expired first
            return;
        }
        if (entry.once) {
            acquisition.firstRenewalDone = true;
        } else {
            enqueue(new Entry(acquisition, sentNanos + entry.intervalNanos, entry.intervalNanos, false));
        }
    }

    /**
     * A failed renewal is tried again after a third of the interval, or of what is left of the lease if
     * that is less (a short first lease), at least 5 ms: several tries fit before the lease ends.
     */
    private long retryDelay(Entry entry) {
        long left = entry.acquisition.validUntilNanos() - clock.nanoTime();
        return Math.max(TimeUnit.MILLISECONDS.toNanos(5), Math.min(entry.intervalNanos, Math.max(0, left)) / 3);
    }

    /** Returns how many entries are queued (live and stale); for tests. */
    int queued() {
        lock.lock();
        try {
            return queue.size();
        } finally {
            lock.unlock();
        }
    }

    /** Cancels all pending work; the scheduler itself is shut down by the client. */
    void shutdown() {
        lock.lock();
        try {
            queue.clear();
            stale = 0;
            if (tick != null) {
                tick.cancel();
                tick = null;
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * A renewal (interval > 0) or an expiry check (interval {@link #EXPIRY}) due at a time. A renewal
     * that is {@code once} is not followed by another (the claim of a short first lease without autoRenew).
     */
    private static final class Entry {
        static final long EXPIRY = 0;

        final Acquisition acquisition;
        final long dueNanos;
        final long intervalNanos;
        final boolean once;

        Entry(Acquisition acquisition, long dueNanos, long intervalNanos, boolean once) {
            this.acquisition = acquisition;
            this.dueNanos = dueNanos;
            this.intervalNanos = intervalNanos;
            this.once = once;
        }
    }
}
