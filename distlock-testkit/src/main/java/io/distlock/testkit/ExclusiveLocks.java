package io.distlock.testkit;

import io.distlock.DistributedLock;
import io.distlock.LockClient;
import io.distlock.LockKind;
import io.distlock.LockOptions;

/**
 * The exclusive lock of each {@link LockKind} a contract tier can run against: the whole {@link LockContract}
 * holds for {@link LockKind#LOCK}, {@link LockKind#FAIR_LOCK} and the write side of a
 * {@link LockKind#READ_WRITE_LOCK}, so a backend's test class picks the kind with {@link ContractSupport#kind()}.
 * A semaphore has no exclusive lock.
 */
public final class ExclusiveLocks {

    private ExclusiveLocks() {}

    /**
     * Returns the exclusive lock of {@code kind} named {@code name} from {@code client}, with the client's default options.
     *
     * @throws IllegalArgumentException for {@link LockKind#SEMAPHORE}
     */
    public static DistributedLock of(LockKind kind, LockClient client, String name) {
        return switch (kind) {
            case LOCK -> client.getLock(name);
            case FAIR_LOCK -> client.getFairLock(name);
            case READ_WRITE_LOCK -> client.getReadWriteLock(name).writeLock();
            case SEMAPHORE -> throw noExclusiveLock();
        };
    }

    /**
     * Returns the exclusive lock of {@code kind} named {@code name} with {@code options} from {@code client}; the
     * arguments go to the client unchecked, so that a contract can pass bad ones.
     *
     * @throws IllegalArgumentException for {@link LockKind#SEMAPHORE}
     */
    public static DistributedLock of(LockKind kind, LockClient client, String name, LockOptions options) {
        return switch (kind) {
            case LOCK -> client.getLock(name, options);
            case FAIR_LOCK -> client.getFairLock(name, options);
            case READ_WRITE_LOCK -> client.getReadWriteLock(name, options).writeLock();
            case SEMAPHORE -> throw noExclusiveLock();
        };
    }

    private static IllegalArgumentException noExclusiveLock() {
        return new IllegalArgumentException("a semaphore has no exclusive lock: the lock contract runs on "
                + LockKind.LOCK.id() + ", " + LockKind.FAIR_LOCK.id() + " and " + LockKind.READ_WRITE_LOCK.id());
    }
}
