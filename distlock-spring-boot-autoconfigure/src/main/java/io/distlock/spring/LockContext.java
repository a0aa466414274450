package io.distlock.spring;

import io.distlock.Lease;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;

/**
 * The lease of the {@link WithLock} method running on this thread, so that it can hand the fencing token
 * to the resource it protects:
 *
 * <pre>{@code
 * long token = LockContext.currentLease().fencingToken();
 * }</pre>
 *
 * <p>Set for the duration of the method's own call on the thread that runs it (nested {@code @WithLock}
 * methods see their own lease, then the outer one again). Work the method hands to other threads does not
 * see it through this class: pass the lease or its token along. A {@code Mono} or {@code Flux} returned by the method
 * carries it in its Reactor context under {@link #REACTOR_CONTEXT_KEY}.
 *
 * <p>With distlock-fencing on the class path, the lease's fencing token is also the current token of its guards
 * ({@code io.distlock.fencing.FencingContext}): inside the method, {@code stock.update(connection, set, where, ...)}
 * fences the write without being handed the token.
 */
public final class LockContext {
    /** The Reactor context key under which a {@code Mono} or {@code Flux} returned by a {@code @WithLock} method finds its {@link Lease}. */
    public static final String REACTOR_CONTEXT_KEY = "io.distlock.spring.lease";

    private static final ThreadLocal<Deque<Lease>> LEASES = ThreadLocal.withInitial(ArrayDeque::new);

    private LockContext() {}

    /**
     * Returns the lease of the innermost {@code @WithLock} method running on this thread.
     *
     * @throws IllegalStateException when no {@code @WithLock} method is running on this thread
     */
    public static Lease currentLease() {
        return findCurrentLease().orElseThrow(() -> new IllegalStateException(
                "no @WithLock method is running on this thread (" + Thread.currentThread().getName() + ")"));
    }

    /** Returns the lease of the innermost {@code @WithLock} method running on this thread, if any. */
    public static Optional<Lease> findCurrentLease() {
        return Optional.ofNullable(LEASES.get().peek());
    }

    /**
     * Makes {@code lease} current until the returned scope is closed (closing the scope does not release the lease);
     * with distlock-fencing on the class path, its fencing token too, for guards called without a token.
     */
    static Scope enter(Lease lease) {
        Deque<Lease> leases = LEASES.get();
        leases.push(lease);
        Scope token = FencingTokenScope.enter(lease);
        return () -> {
            token.close();
            leases.remove(lease);
            if (leases.isEmpty()) {
                LEASES.remove();
            }
        };
    }

    /** The span during which a lease is current. */
    interface Scope extends AutoCloseable {
        @Override
        void close();
    }
}
