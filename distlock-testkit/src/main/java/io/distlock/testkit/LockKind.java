package io.distlock.testkit;

import io.distlock.DistributedLock;
import io.distlock.LockClient;
import io.distlock.LockOptions;

/**
 * The exclusive lock kinds a contract tier can run against: the whole {@link LockContract} holds for each
 * of them, so a backend's test class picks the kind with {@link ContractSupport#kind()}.
 */
public enum LockKind {
    /** {@link LockClient#getLock}. */
    PLAIN,
    /** {@link LockClient#getFairLock}. */
    FAIR,
    /** The write side of {@link LockClient#getReadWriteLock}. */
    WRITE;

    /** Returns the lock of this kind with this name and options from {@code client}. */
    public DistributedLock of(LockClient client, String name, LockOptions options) {
        return switch (this) {
            case PLAIN -> client.getLock(name, options);
            case FAIR -> client.getFairLock(name, options);
            case WRITE -> client.getReadWriteLock(name, options).writeLock();
        };
    }

    /** Returns the lock of this kind with this name and the client's default options. */
    public DistributedLock of(LockClient client, String name) {
        return switch (this) {
            case PLAIN -> client.getLock(name);
            case FAIR -> client.getFairLock(name);
            case WRITE -> client.getReadWriteLock(name).writeLock();
        };
    }
}
