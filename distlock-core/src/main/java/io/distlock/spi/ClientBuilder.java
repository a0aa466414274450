package io.distlock.spi;

import io.distlock.LockListener;
import io.distlock.LockOptions;
import io.distlock.OpenOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The settings every backend's client builder shares: default lock options, operation timeout and
 * fallback poll, each validated when set. Backend builders extend it with their own connection settings.
 *
 * @param <B> the concrete builder, returned by every setter for chaining
 */
public abstract class ClientBuilder<B extends ClientBuilder<B>> {
    private LockOptions lockOptions;
    private boolean lockOptionsSet;
    private Duration operationTimeout;
    private Duration fallbackPoll = EngineSettings.DEFAULT_FALLBACK_POLL;
    private final List<LockListener> listeners = new ArrayList<>();

    /** Starts with the backend's defaults. */
    protected ClientBuilder(LockOptions defaultOptions, Duration defaultOperationTimeout) {
        this.lockOptions = defaultOptions;
        this.operationTimeout = defaultOperationTimeout;
    }

    /** Returns this builder as its concrete type. */
    protected abstract B self();

    /** Sets the options of {@code getLock(name)}. */
    public B lockOptions(LockOptions lockOptions) {
        if (lockOptions == null) {
            throw new IllegalArgumentException("lockOptions must not be null");
        }
        this.lockOptions = lockOptions;
        this.lockOptionsSet = true;
        return self();
    }

    /** Sets the lease time of {@code getLock(name)}; shorthand for {@link #lockOptions}. */
    public B leaseTime(Duration leaseTime) {
        this.lockOptions = lockOptions.toBuilder().leaseTime(leaseTime).build();
        this.lockOptionsSet = true;
        return self();
    }

    /**
     * Sets how many times in a row a lease of {@code getLock(name)} may pass to another thread of this client without a
     * round trip (lock cohorting); shorthand for {@link #lockOptions}. See {@link LockOptions.Builder#localHandoffs}.
     */
    public B localHandoffs(int handoffs) {
        this.lockOptions = lockOptions.toBuilder().localHandoffs(handoffs).build(); // the lease stays the backend's default
        return self();
    }

    /** Sets how long one backend operation may take before it fails with BackendUnavailableException. */
    public B operationTimeout(Duration operationTimeout) {
        this.operationTimeout = positive(operationTimeout, "operationTimeout");
        return self();
    }

    /** Sets the longest a waiter sleeps without a notification before asking the backend again (default 1 s). */
    public B fallbackPoll(Duration fallbackPoll) {
        this.fallbackPoll = positive(fallbackPoll, "fallbackPoll");
        return self();
    }

    /** Returns the lock options set so far. */
    /**
     * Adds a listener told what happens to the client's leases (acquired, renewed, renewal failed, lost,
     * ended), for metrics or an inventory of held locks; for Micrometer, distlock-micrometer's
     * {@code DistlockMetrics}. Listeners run on distlock's threads and must return quickly.
     */
    public B listener(LockListener listener) {
        if (listener == null) {
            throw new IllegalArgumentException("listener must not be null");
        }
        this.listeners.add(listener);
        return self();
    }

    /**
     * Applies what {@code options} sets (lock options, local handoffs, operation timeout, fallback poll, listeners) and leaves the rest;
     * the namespace is the backend's to apply, by its own setter.
     */
    public B apply(OpenOptions options) {
        options.lockOptions().ifPresent(this::lockOptions);
        options.localHandoffs().ifPresent(this::localHandoffs);
        options.operationTimeout().ifPresent(this::operationTimeout);
        options.fallbackPoll().ifPresent(this::fallbackPoll);
        options.listeners().forEach(this::listener);
        return self();
    }

    protected LockOptions lockOptions() {
        return lockOptions;
    }

    /** Returns whether the caller chose the lock options or lease time (rather than the backend's default). */
    protected boolean lockOptionsSet() {
        return lockOptionsSet;
    }

    /** Replaces the default lock options (a backend that learns its limits only once connected). */
    protected void defaultLockOptions(LockOptions options) {
        this.lockOptions = options;
    }

    /** Returns the operation timeout set so far. */
    protected Duration operationTimeout() {
        return operationTimeout;
    }

    /** Returns the fallback poll set so far. */
    protected Duration fallbackPoll() {
        return fallbackPoll;
    }

    /** Returns the engine settings for these options, with the backend's thread name prefix. */
    protected EngineSettings engineSettings(String threadNamePrefix) {
        return new EngineSettings(lockOptions, fallbackPoll, threadNamePrefix, listeners);
    }

    /** Returns {@code value} if it is a positive duration; otherwise throws naming {@code what}. */
    protected static Duration positive(Duration value, String what) {
        if (value == null || value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(what + " must be positive, was " + value);
        }
        return value;
    }
}
