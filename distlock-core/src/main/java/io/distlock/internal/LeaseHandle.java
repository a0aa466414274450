package io.distlock.internal;

import io.distlock.Lease;
import io.distlock.LeaseLostException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * A {@link Lease}: one hold on an {@link Acquisition}. Closing it releases that hold, once, from any
 * thread. A view (from {@code heldLease()}) owns no hold and closing it does nothing.
 */
final class LeaseHandle implements Lease {
    private final @Nullable EngineLock lock;
    private final Acquisition acquisition;
    private final boolean ownsHold;
    private final AtomicBoolean closed = new AtomicBoolean();

    private LeaseHandle(@Nullable EngineLock lock, Acquisition acquisition, boolean ownsHold) {
        this.lock = lock;
        this.acquisition = acquisition;
        this.ownsHold = ownsHold;
    }

    static LeaseHandle owning(EngineLock lock, Acquisition acquisition) {
        return new LeaseHandle(lock, acquisition, true);
    }

    static LeaseHandle view(EngineLock lock, Acquisition acquisition) {
        return new LeaseHandle(lock, acquisition, false);
    }

    /** A view for {@link io.distlock.LockListener}s. */
    static LeaseHandle observing(Acquisition acquisition) {
        return new LeaseHandle(null, acquisition, false);
    }

    @Override
    public String lockName() {
        return acquisition.lockName();
    }

    @Override
    public long fencingToken() {
        return acquisition.fencingToken;
    }

    @Override
    public boolean isValid() {
        if (ownsHold) {
            return !closed.get() && acquisition.isValid();
        }
        return acquisition.holdCount() > 0 && acquisition.isValid();
    }

    @Override
    public Duration remaining() {
        return isValid() ? acquisition.remaining() : Duration.ZERO;
    }

    @Override
    public void onLost(Consumer<LeaseLostException> listener) {
        acquisition.onLost(listener);
    }

    @Override
    public void close() {
        if (ownsHold && lock != null && closed.compareAndSet(false, true)) {
            lock.releaseHold(acquisition, false);
        }
    }

    @Override
    public String toString() {
        return "Lease[" + lockName() + ", token=" + fencingToken() + ", valid=" + isValid() + "]";
    }
}
