package io.distlock.integration;

import java.time.Duration;
import java.util.concurrent.locks.Lock;
import org.springframework.integration.support.locks.DistributedLock;

/** Spring Integration 7's {@code DistributedLock} for the contract; loaded only where it exists. */
final class Si7 {
    private Si7() {
    }

    static boolean present() {
        try {
            Class.forName("org.springframework.integration.support.locks.DistributedLock");
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    static void lock(Lock lock, Duration ttl) {
        ((DistributedLock) lock).lock(ttl);
    }

    static boolean tryLock(Lock lock, Duration wait, Duration ttl) throws InterruptedException {
        return ((DistributedLock) lock).tryLock(wait, ttl);
    }
}
