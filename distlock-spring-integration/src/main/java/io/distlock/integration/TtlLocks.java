package io.distlock.integration;

import io.distlock.DistributedLock;
import io.distlock.LockClient;
import java.time.Duration;

/**
 * The registry's locks on Spring Integration 7, which adds time-to-live locking ({@code DistributedLock}). Loaded only
 * when that interface is on the class path: on 6.5 the registry makes plain {@link DistlockRegistryLock}s.
 */
final class TtlLocks {
    private TtlLocks() {
    }

    static DistlockRegistryLock create(LockClient client, DistributedLock lock) {
        return new TtlLock(client, lock);
    }

    /** A {@link DistlockRegistryLock} that is Spring Integration 7's {@code DistributedLock}. */
    static final class TtlLock extends DistlockRegistryLock implements org.springframework.integration.support.locks.DistributedLock {
        TtlLock(LockClient client, DistributedLock lock) {
            super(client, lock);
        }

        /** Takes the lock with a lease of {@code ttl}, not renewed; waits as long as it takes, like {@link #lock()}. */
        @Override
        public void lock(Duration ttl) {
            boolean interrupted = false;
            try {
                while (true) {
                    try {
                        if (tryLockFor(Duration.ofDays(365 * 100), ttl)) {
                            return;
                        }
                    } catch (InterruptedException e) {
                        interrupted = true; // like lock(): the wait goes on, the flag is set again at the end
                    }
                }
            } finally {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        }

        @Override
        public boolean tryLock(Duration waitTime, Duration ttl) throws InterruptedException {
            return tryLockFor(waitTime, ttl);
        }
    }
}
