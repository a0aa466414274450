package io.distlock.spring;

import io.distlock.DistributedLock;
import io.distlock.LockClient;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * A lock with the client's default options except, where a caller names one, the lease. Built from
 * {@code LockOptions.builder()} instead, an override would drop what the application set for every lock
 * ({@code distlock.local-handoffs}, a builder's {@code lockOptions}).
 */
final class LeaseOverride {
    private LeaseOverride() {
    }

    /** Returns {@code client}'s lock {@code name} with its default options, the lease replaced by {@code leaseTime} if given. */
    static DistributedLock lock(LockClient client, String name, @Nullable Duration leaseTime) {
        DistributedLock lock = client.getLock(name);
        if (leaseTime == null || lock.options().leaseTime().equals(leaseTime)) {
            return lock;
        }
        return client.getLock(name, lock.options().toBuilder().leaseTime(leaseTime).build());
    }
}
