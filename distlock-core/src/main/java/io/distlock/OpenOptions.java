package io.distlock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * What a client opened from a target URI ({@link LockClients#open(String, OpenOptions)}) is set up with, besides the
 * target: the namespace its locks live in, the default lock options, the operation timeout, the fallback poll and
 * listeners, and the application's objects a backend may open its client with ({@link #resource}); whatever is not set
 * keeps the backend's default. The same settings every backend's builder has, so that
 * tools that open any backend (the checker's workers, the CLI, configuration) set them one way. Immutable: each
 * setter returns a copy.
 */
public final class OpenOptions {
    private static final OpenOptions DEFAULTS = new OpenOptions(null, null, null, null, null, List.of(), List.of());

    private final @Nullable String namespace;
    private final @Nullable LockOptions lockOptions;
    private final @Nullable Integer localHandoffs;
    private final @Nullable Duration operationTimeout;
    private final @Nullable Duration fallbackPoll;
    private final List<LockListener> listeners;
    private final List<Object> resources;

    private OpenOptions(@Nullable String namespace, @Nullable LockOptions lockOptions, @Nullable Integer localHandoffs,
            @Nullable Duration operationTimeout, @Nullable Duration fallbackPoll, List<LockListener> listeners, List<Object> resources) {
        this.namespace = namespace;
        this.lockOptions = lockOptions;
        this.localHandoffs = localHandoffs;
        this.operationTimeout = operationTimeout;
        this.fallbackPoll = fallbackPoll;
        this.listeners = List.copyOf(listeners);
        this.resources = List.copyOf(resources);
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
        return new OpenOptions(namespace, lockOptions, localHandoffs, operationTimeout, fallbackPoll, listeners, resources);
    }

    /** Returns a copy with these options for {@code getLock(name)} and the other kinds. */
    public OpenOptions lockOptions(LockOptions lockOptions) {
        if (lockOptions == null) {
            throw new IllegalArgumentException("lockOptions must not be null");
        }
        return new OpenOptions(namespace, lockOptions, localHandoffs, operationTimeout, fallbackPoll, listeners, resources);
    }

    /**
     * Returns a copy whose {@code getLock(name)} may hand a lease to another thread of the client up to {@code handoffs}
     * times in a row without a round trip ({@link LockOptions.Builder#localHandoffs}), applied over the lock options and
     * leaving the backend's default lease as it is (ZooKeeper's and etcd's follow their session).
     *
     * @throws IllegalArgumentException if not between 0 and {@link LockOptions#MAX_LOCAL_HANDOFFS}
     */
    public OpenOptions localHandoffs(int handoffs) {
        LockOptions.builder().localHandoffs(handoffs); // the same check and message
        return new OpenOptions(namespace, lockOptions, handoffs, operationTimeout, fallbackPoll, listeners, resources);
    }

    /** Returns a copy whose backend operations fail with {@link BackendUnavailableException} after this long. */
    public OpenOptions operationTimeout(Duration operationTimeout) {
        return new OpenOptions(namespace, lockOptions, localHandoffs, positive(operationTimeout, "operationTimeout"), fallbackPoll, listeners, resources);
    }

    /** Returns a copy whose waiters ask the backend again after this long without a notification. */
    public OpenOptions fallbackPoll(Duration fallbackPoll) {
        return new OpenOptions(namespace, lockOptions, localHandoffs, operationTimeout, positive(fallbackPoll, "fallbackPoll"), listeners, resources);
    }

    /** Returns a copy that also tells {@code listener} what happens to the client's leases. */
    public OpenOptions listener(LockListener listener) {
        if (listener == null) {
            throw new IllegalArgumentException("listener must not be null");
        }
        List<LockListener> more = new ArrayList<>(listeners);
        more.add(listener);
        return new OpenOptions(namespace, lockOptions, localHandoffs, operationTimeout, fallbackPoll, more, resources);
    }

    /**
     * Returns a copy that offers the backend an object of the application's to open its client with, for what a target
     * URI cannot carry: a {@code javax.sql.DataSource} to take connections from (SQL; the target then names the
     * database only, to pick the backend), a {@link java.net.PasswordAuthentication} with the credentials (SQL). A
     * backend uses those of the types it documents (the last offered of each) and ignores the rest.
     */
    public OpenOptions resource(Object resource) {
        if (resource == null) {
            throw new IllegalArgumentException("resource must not be null");
        }
        List<Object> more = new ArrayList<>(resources);
        more.add(resource);
        return new OpenOptions(namespace, lockOptions, localHandoffs, operationTimeout, fallbackPoll, listeners, more);
    }

    /** Returns the namespace, if set. */
    public Optional<String> namespace() {
        return Optional.ofNullable(namespace);
    }

    /** Returns the lock options, if set. */
    public Optional<LockOptions> lockOptions() {
        return Optional.ofNullable(lockOptions);
    }

    /** Returns the local handoffs, if set. */
    public java.util.OptionalInt localHandoffs() {
        return localHandoffs == null ? java.util.OptionalInt.empty() : java.util.OptionalInt.of(localHandoffs);
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

    /** Returns the last resource offered that is a {@code type}, if any. */
    public <T> Optional<T> resourceOf(Class<T> type) {
        for (int i = resources.size() - 1; i >= 0; i--) {
            if (type.isInstance(resources.get(i))) {
                return Optional.of(type.cast(resources.get(i)));
            }
        }
        return Optional.empty();
    }

    private static Duration positive(@Nullable Duration value, String what) {
        if (value == null || value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(what + " must be positive, was " + value);
        }
        return value;
    }

    @Override
    public String toString() {
        return "OpenOptions[namespace=" + namespace + ", lockOptions=" + lockOptions + (localHandoffs == null ? "" : ", localHandoffs=" + localHandoffs) + ", operationTimeout=" + operationTimeout
                + ", fallbackPoll=" + fallbackPoll + ", listeners=" + listeners.size()
                + ", resources=" + resources.stream().map(resource -> resource.getClass().getSimpleName()).toList() + "]";
    }
}
