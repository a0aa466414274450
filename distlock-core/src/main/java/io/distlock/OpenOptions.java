package io.distlock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * What a client opened from a target URI ({@link LockClients#open(String, OpenOptions)}) is set up with, besides the
 * target: the namespace its locks live in, the default lock options, the operation timeout, the fallback poll and
 * listeners; whatever is not set keeps the backend's default. The same settings every backend's builder has, so that
 * tools that open any backend (the checker's workers, the CLI, configuration) set them one way. Immutable: each
 * setter returns a copy.
 */
public final class OpenOptions {
    private static final OpenOptions DEFAULTS = new OpenOptions(null, null, null, null, List.of());

    private final @Nullable String namespace;
    private final @Nullable LockOptions lockOptions;
    private final @Nullable Duration operationTimeout;
    private final @Nullable Duration fallbackPoll;
    private final List<LockListener> listeners;

    private OpenOptions(@Nullable String namespace, @Nullable LockOptions lockOptions, @Nullable Duration operationTimeout,
            @Nullable Duration fallbackPoll, List<LockListener> listeners) {
        this.namespace = namespace;
        this.lockOptions = lockOptions;
        this.operationTimeout = operationTimeout;
        this.fallbackPoll = fallbackPoll;
        this.listeners = List.copyOf(listeners);
    }

    /** Returns options that leave everything at the backend's defaults. */
    public static OpenOptions defaults() {
        return DEFAULTS;
    }

    /**
     * Returns a copy whose locks live in {@code namespace} (a Redis key prefix, a ZooKeeper or etcd namespace, an SQL
     * table), or in the backend's default namespace if it is null; the backend checks its form when it opens the client.
     */
    public OpenOptions namespace(@Nullable String namespace) {
        return new OpenOptions(namespace, lockOptions, operationTimeout, fallbackPoll, listeners);
    }

    /** Returns a copy with these options for {@code getLock(name)} and the other kinds. */
    public OpenOptions lockOptions(LockOptions lockOptions) {
        if (lockOptions == null) {
            throw new IllegalArgumentException("lockOptions must not be null");
        }
        return new OpenOptions(namespace, lockOptions, operationTimeout, fallbackPoll, listeners);
    }

    /** Returns a copy whose backend operations fail with {@link BackendUnavailableException} after this long. */
    public OpenOptions operationTimeout(Duration operationTimeout) {
        return new OpenOptions(namespace, lockOptions, positive(operationTimeout, "operationTimeout"), fallbackPoll, listeners);
    }

    /** Returns a copy whose waiters ask the backend again after this long without a notification. */
    public OpenOptions fallbackPoll(Duration fallbackPoll) {
        return new OpenOptions(namespace, lockOptions, operationTimeout, positive(fallbackPoll, "fallbackPoll"), listeners);
    }

    /** Returns a copy that also tells {@code listener} what happens to the client's leases. */
    public OpenOptions listener(LockListener listener) {
        if (listener == null) {
            throw new IllegalArgumentException("listener must not be null");
        }
        List<LockListener> more = new ArrayList<>(listeners);
        more.add(listener);
        return new OpenOptions(namespace, lockOptions, operationTimeout, fallbackPoll, more);
    }

    /** Returns the namespace, if set. */
    public Optional<String> namespace() {
        return Optional.ofNullable(namespace);
    }

    /** Returns the lock options, if set. */
    public Optional<LockOptions> lockOptions() {
        return Optional.ofNullable(lockOptions);
    }

    /** Returns the operation timeout, if set. */
    public Optional<Duration> operationTimeout() {
        return Optional.ofNullable(operationTimeout);
    }

    /** Returns the fallback poll, if set. */
    public Optional<Duration> fallbackPoll() {
        return Optional.ofNullable(fallbackPoll);
    }

    /** Returns the listeners, in the order added. */
    public List<LockListener> listeners() {
        return listeners;
    }

    private static Duration positive(@Nullable Duration value, String what) {
        if (value == null || value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(what + " must be positive, was " + value);
        }
        return value;
    }

    @Override
    public String toString() {
        return "OpenOptions[namespace=" + namespace + ", lockOptions=" + lockOptions + ", operationTimeout=" + operationTimeout
                + ", fallbackPoll=" + fallbackPoll + ", listeners=" + listeners.size() + "]";
    }
}
