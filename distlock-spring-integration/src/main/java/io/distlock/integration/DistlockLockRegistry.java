package io.distlock.integration;

import io.distlock.LockClient;
import io.distlock.LockOptions;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.jspecify.annotations.Nullable;
import org.springframework.integration.support.locks.ExpirableLockRegistry;
import org.springframework.integration.support.locks.RenewableLockRegistry;
import org.springframework.util.ClassUtils;

/**
 * A Spring Integration {@code LockRegistry} on a distlock {@link LockClient}: code written against
 * {@code RedisLockRegistry} or {@code JdbcLockRegistry} (aggregators, {@code LockRegistryLeaderInitiator},
 * {@code executeLocked}, your own {@code obtain(key).lock()}) runs on any distlock backend by changing one bean.
 *
 * <pre>{@code
 * @Bean
 * LockRegistry lockRegistry(LockClient locks) {
 *     return new DistlockLockRegistry(locks);
 * }
 * }</pre>
 *
 * <p>What changes against Spring Integration's own registries:
 * <ul>
 *   <li>A lock taken with {@code lock()} or {@code tryLock(...)} is renewed by distlock's watchdog for as long as it is
 *       held, so a long task does not lose it after a fixed time to live; a crashed holder's lock ends with its lease
 *       (the options' lease time, 30 s by default). {@code renewLock(key)} checks that the calling thread still holds
 *       it and throws otherwise.</li>
 *   <li>On Spring Integration 7, the locks are its {@code DistributedLock}: {@code lock(ttl)} and
 *       {@code tryLock(wait, ttl)} take a lease of {@code ttl} that is not renewed, except by {@code renewLock(key)}
 *       (for the same {@code ttl}) or {@code renewLock(key, ttl)}; the lock ends when it runs out.</li>
 *   <li>A holder learns of a loss: {@link DistlockRegistryLock#heldLease()} turns invalid and tells its
 *       {@code onLost} listeners; {@code unlock()} then throws {@link java.util.ConcurrentModificationException} (as
 *       Spring Integration's registries do for an expired lock), and another holder's lock is never touched.</li>
 *   <li>Every hold has a fencing token, {@link DistlockRegistryLock#fencingToken()}.</li>
 * </ul>
 * As with Spring Integration's registries, a lock belongs to the thread that locked it: {@code unlock()} by another
 * thread throws {@link IllegalStateException}; keys must be {@link String}s (they are the lock names, in the client's
 * namespace); a backend that does not answer makes {@code lock()} throw Spring's
 * {@code CannotAcquireLockException}.
 *
 * <p>Works with Spring Integration 6.5 (Spring Boot 3.5) and 7.x (Boot 4), tested on both.
 */
@SuppressWarnings("rawtypes") // the raw interfaces: Spring Integration 7 made them generic, 6.5's are not
public final class DistlockLockRegistry implements ExpirableLockRegistry, RenewableLockRegistry {
    /** Spring Integration 7's lock interface, if it is on the class path; our locks then implement it. */
    private static final boolean DISTRIBUTED_LOCK = ClassUtils.isPresent("org.springframework.integration.support.locks.DistributedLock",
            DistlockLockRegistry.class.getClassLoader());

    private final LockClient client;
    private final @Nullable LockOptions options;
    private final ConcurrentMap<String, DistlockRegistryLock> locks = new ConcurrentHashMap<>();

    /** Locks on {@code client}'s backend with the client's default options; the registry does not close it. */
    public DistlockLockRegistry(LockClient client) {
        this.client = Objects.requireNonNull(client, "client");
        this.options = null;
    }

    /**
     * Locks on {@code client}'s backend with {@code options} (lease time, renewals); the registry does not close the
     * client.
     */
    public DistlockLockRegistry(LockClient client, LockOptions options) {
        this.client = Objects.requireNonNull(client, "client");
        this.options = Objects.requireNonNull(options, "options");
    }

    /**
     * Returns the lock of {@code lockKey}: the same object for the same key until {@link #expireUnusedOlderThan} drops
     * it.
     *
     * @throws IllegalArgumentException if the key is not a String, or not a valid lock name (blank, too long)
     */
    @Override
    public DistlockRegistryLock obtain(Object lockKey) {
        String name = nameOf(lockKey);
        DistlockRegistryLock lock = locks.computeIfAbsent(name, this::newLock);
        lock.used();
        return lock;
    }

    private DistlockRegistryLock newLock(String name) {
        io.distlock.DistributedLock lock = options == null ? client.getLock(name) : client.getLock(name, options);
        return DISTRIBUTED_LOCK ? TtlLocks.create(client, lock) : new DistlockRegistryLock(client, lock);
    }

    /** Drops the locks nobody in this process holds that were last obtained more than {@code age} ms ago. */
    @Override
    public void expireUnusedOlderThan(long age) {
        long now = System.currentTimeMillis();
        locks.values().removeIf(lock -> lock.unusedSince(now - age));
    }

    /**
     * Renews the lock of {@code lockKey} that the calling thread holds: one taken with a time to live is renewed for
     * it; one the watchdog renews is checked to be still held.
     *
     * @throws IllegalStateException if the calling thread does not hold it, or it was lost
     */
    @Override
    public void renewLock(Object lockKey) {
        heldByThisThread(lockKey).renew(null);
    }

    /**
     * Renews the lock of {@code lockKey} that the calling thread holds for {@code ttl}, if it was taken with a time to
     * live (Spring Integration 7's {@code lock(ttl)}); one the watchdog renews is checked to be still held, and the
     * watchdog goes on renewing it.
     *
     * @throws IllegalStateException if the calling thread does not hold it, or it was lost
     */
    public void renewLock(Object lockKey, Duration ttl) {
        Objects.requireNonNull(ttl, "ttl");
        heldByThisThread(lockKey).renew(ttl);
    }

    private DistlockRegistryLock heldByThisThread(Object lockKey) {
        String name = nameOf(lockKey);
        DistlockRegistryLock lock = locks.get(name);
        if (lock == null || !lock.isHeldByCurrentThread()) {
            throw new IllegalStateException("lock '" + name + "' is not held by this thread (" + Thread.currentThread().getName()
                    + "): nothing to renew");
        }
        return lock;
    }

    private static String nameOf(@Nullable Object lockKey) {
        if (!(lockKey instanceof String name)) {
            throw new IllegalArgumentException("lock keys must be Strings (the lock names), got "
                    + (lockKey == null ? "null" : lockKey.getClass().getName()));
        }
        return name;
    }

    @Override
    public String toString() {
        return "DistlockLockRegistry[" + client + ", " + locks.size() + " locks]";
    }
}
