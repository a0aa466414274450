package io.distlock.spring;

import io.distlock.Lease;
import io.distlock.LockListener;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The locks this instance holds right now, for the {@code distlocks} Actuator endpoint and the
 * {@code distlock} health indicator: a {@link LockListener} registered on the auto-configured client.
 */
public final class HeldLocks implements LockListener {
    /** One held lock as the endpoint shows it. */
    public record HeldLock(String name, String backend, long fencingToken, Duration heldFor, Duration leaseLeft, boolean valid,
            int renewalFailures, boolean lastRenewalFailed) {}

    private static final class Entry {
        final long sinceNanos = System.nanoTime();
        final AtomicInteger renewalFailures = new AtomicInteger();
        volatile boolean lastRenewalFailed;
    }

    private final String backend;
    private final Map<Lease, Entry> held = new ConcurrentHashMap<>();

    public HeldLocks(String backend) {
        this.backend = backend;
    }

    /** Returns the held locks, longest held first. */
    public List<HeldLock> list() {
        long now = System.nanoTime();
        return held.entrySet().stream()
                .map(e -> new HeldLock(e.getKey().lockName(), backend, e.getKey().fencingToken(), Duration.ofNanos(now - e.getValue().sinceNanos),
                        e.getKey().remaining(), e.getKey().isValid(), e.getValue().renewalFailures.get(), e.getValue().lastRenewalFailed))
                .sorted(Comparator.comparing(HeldLock::heldFor).reversed())
                .toList();
    }

    /** Returns how many locks are held. */
    public int size() {
        return held.size();
    }

    /** Returns the names of held locks whose last renewal failed. */
    public List<String> failingRenewals() {
        return held.entrySet().stream().filter(e -> e.getValue().lastRenewalFailed).map(e -> e.getKey().lockName()).sorted().toList();
    }

    /** Returns the backend these locks are on, e.g. {@code redis}. */
    public String backend() {
        return backend;
    }

    @Override
    public void acquired(Lease lease) {
        held.put(lease, new Entry());
    }

    @Override
    public void renewed(Lease lease) {
        Entry entry = held.get(lease);
        if (entry != null) {
            entry.lastRenewalFailed = false;
        }
    }

    @Override
    public void renewalFailed(Lease lease, Throwable error) {
        Entry entry = held.get(lease);
        if (entry != null) {
            entry.renewalFailures.incrementAndGet();
            entry.lastRenewalFailed = true;
        }
    }

    @Override
    public void ended(Lease lease) {
        held.remove(lease);
    }

    @Override
    public String toString() {
        return "HeldLocks[" + backend + ", " + held.size() + "]";
    }
}
