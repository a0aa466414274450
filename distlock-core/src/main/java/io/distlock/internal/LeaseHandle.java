package io.distlock.internal;

import io.distlock.Lease;
import io.distlock.LeaseLostException;
import io.distlock.LockOptions;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * A {@link Lease}: one hold on an {@link Acquisition}. Closing it releases that hold, once, from any
 * thread. A view (from {@code heldLease()}) owns no hold and closing it does nothing.
 */
final class LeaseHandle implements Lease {
    private final @Nullable LockSpace space;
    private final Acquisition acquisition;
    private final boolean ownsHold;
    private final AtomicBoolean closed = new AtomicBoolean();

    private LeaseHandle(@Nullable LockSpace space, Acquisition acquisition, boolean ownsHold) {
        this.space = space;
        this.acquisition = acquisition;
        this.ownsHold = ownsHold;
    }

    static LeaseHandle owning(LockSpace space, Acquisition acquisition) {
        return new LeaseHandle(space, acquisition, true);
    }

    static LeaseHandle view(LockSpace space, Acquisition acquisition) {
        return new LeaseHandle(space, acquisition, false);
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
        if (ownsHold && space != null && closed.compareAndSet(false, true)) {
            space.releaseHold(acquisition, false);
        }
    }

    @Override
    public boolean expireAfter(Duration holdFor) {
        if (holdFor == null || holdFor.isNegative() || holdFor.isZero()) {
            throw new IllegalArgumentException("holdFor must be positive, was " + holdFor);
        }
        if (!ownsHold || space == null || !space.backend.leasesEndOnTheServer() || !isValid()) {
            return false; // a view owns no hold; a session-bound backend cannot; a closed or lost lease has nothing to keep
        }
        if (!closed.compareAndSet(false, true)) {
            return false;
        }
        return space.expireHold(acquisition, holdFor);
    }

    @Override
    public boolean renew(Duration leaseTime) {
        if (leaseTime == null || leaseTime.compareTo(LockOptions.MIN_LEASE_TIME) < 0 || leaseTime.compareTo(LockOptions.MAX_LEASE_TIME) > 0) {
            throw new IllegalArgumentException("leaseTime must be between " + LockOptions.MIN_LEASE_TIME + " and "
                    + LockOptions.MAX_LEASE_TIME + ", was " + leaseTime);
        }
        if (space == null || closed.get() || !isValid()) {
            return false;
        }
        return space.renewHold(acquisition, leaseTime);
    }

    @Override
    public String toString() {
        return "Lease[" + lockName() + ", token=" + fencingToken() + ", valid=" + isValid() + "]";
    }
}
