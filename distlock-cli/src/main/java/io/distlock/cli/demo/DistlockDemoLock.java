package io.distlock.cli.demo;

import io.distlock.DistributedLock;
import io.distlock.Lease;
import io.distlock.LeaseLostException;
import java.time.Duration;
import java.util.Optional;

/** Strategies 6 and 7: a distlock lock, with the fencing token handed to the store or not. */
final class DistlockDemoLock implements DemoLock {
    private final DistributedLock lock;
    private final boolean fenced;
    /** A write needs at least half a lease left; less, and the holder aborts instead. */
    private final Duration writeMargin;

    DistlockDemoLock(DistributedLock lock, boolean fenced) {
        this.lock = lock;
        this.fenced = fenced;
        this.writeMargin = lock.options().leaseTime().dividedBy(2);
    }

    @Override
    public Acquired acquire() throws InterruptedException {
        Optional<Lease> first = lock.tryAcquire(Duration.ZERO);
        boolean waited = first.isEmpty();
        Lease lease = waited ? lock.acquire() : first.get();
        return new Acquired(held(lease), waited);
    }

    private Held held(Lease lease) {
        return new Held() {
            @Override
            public long token() {
                return fenced ? lease.fencingToken() : 0;
            }

            @Override
            public boolean stillHeld() {
                // strategy 6 has no fencing, so it guards its write with the lease: this narrows the window
                // but cannot close it (a stall between this check and the write); strategy 7 lets the store decide
                return fenced || lease.remaining().compareTo(writeMargin) > 0;
            }

            @Override
            public boolean release() {
                boolean wasValid = lease.isValid();
                try {
                    lease.close();
                } catch (LeaseLostException e) {
                    return false;
                }
                return wasValid;
            }
        };
    }
}
