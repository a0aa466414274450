package io.distlock;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * The lease of a {@link MultiLock}: valid while every part is, lost as soon as any part is lost.
 */
public final class MultiLease implements Lease {
    private final String name;
    private final List<Lease> parts;
    private final AtomicBoolean closed = new AtomicBoolean();

    MultiLease(String name, List<Lease> parts) {
        this.name = name;
        this.parts = List.copyOf(parts);
    }

    /** Returns the leases of the parts, in lock order. */
    public List<Lease> parts() {
        return parts;
    }

    @Override
    public String lockName() {
        return name;
    }

    /** Returns the first part's token (in lock order); use {@link #parts()} to fence each resource with its own lock's token. */
    @Override
    public long fencingToken() {
        return parts.get(0).fencingToken();
    }

    @Override
    public boolean isValid() {
        return !closed.get() && parts.stream().allMatch(Lease::isValid);
    }

    @Override
    public Duration remaining() {
        if (!isValid()) {
            return Duration.ZERO;
        }
        return parts.stream().map(Lease::remaining).min(Duration::compareTo).orElse(Duration.ZERO);
    }

    /** The listener is told once, when the first part is lost. */
    @Override
    public void onLost(Consumer<LeaseLostException> listener) {
        if (listener == null) {
            throw new IllegalArgumentException("listener must not be null");
        }
        AtomicBoolean told = new AtomicBoolean();
        for (Lease part : parts) {
            part.onLost(lost -> {
                if (told.compareAndSet(false, true)) {
                    listener.accept(lost);
                }
            });
        }
    }

    /** Renews every part for {@code leaseTime}; true if each was renewed (all are tried). */
    @Override
    public boolean renew(Duration leaseTime) {
        LockOptions.checkLeaseTime(leaseTime);
        if (closed.get()) {
            return false;
        }
        boolean all = true;
        for (Lease part : parts) {
            all &= part.renew(leaseTime);
        }
        return all;
    }

    /** Releases every part in reverse order, once; a part's failure is thrown after all were released. */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            MultiLock.closeAll(parts);
        }
    }

    @Override
    public String toString() {
        return "MultiLease[" + name + ", valid=" + isValid() + ", parts=" + parts + "]";
    }
}
