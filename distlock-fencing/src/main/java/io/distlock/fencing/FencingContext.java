package io.distlock.fencing;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.OptionalLong;

/**
 * The fencing token of the lock the calling thread works under, for guards called without a token: inside a Spring
 * {@code @WithLock} method the distlock starter makes the method's lease token current; elsewhere {@link #enter} does.
 *
 * <pre>{@code
 * try (Lease lease = lock.acquire(); FencingContext.Scope scope = FencingContext.enter(lease.fencingToken())) {
 *     stock.update(connection, "quantity = quantity - ?", "sku = ?", 1, "sku-42");   // takes the token from here
 * }
 * }</pre>
 *
 * <p>Thread-bound, like the lock it stands for: work handed to another thread does not see the token; pass it along.
 * Scopes nest (the innermost token is current, then the outer one again).
 */
public final class FencingContext {
    /**
     * The Reactor context key under which reactive code finds the token (a {@code Long}): a {@code Mono} or {@code Flux}
     * returned by a Spring {@code @WithLock} method carries its lease's token there, and {@code FencingTokenExchangeFilter}
     * sends it.
     */
    public static final String REACTOR_CONTEXT_KEY = "io.distlock.fencing.token";

    private static final ThreadLocal<Deque<Scope>> TOKENS = ThreadLocal.withInitial(ArrayDeque::new);

    private FencingContext() {}

    /**
     * Returns the current fencing token of this thread.
     *
     * @throws IllegalStateException if there is none: the guard was called outside a {@code @WithLock} method and
     *     outside {@link #enter}; the message says so and how to pass a token
     */
    public static long currentToken() {
        OptionalLong token = findCurrentToken();
        if (token.isEmpty()) {
            throw new IllegalStateException("no fencing token on thread " + Thread.currentThread().getName() + ": a guard called without a token "
                    + "takes it from the lock the thread works under; call it inside a @WithLock method or FencingContext.enter(lease.fencingToken()), "
                    + "or pass lease.fencingToken() to it");
        }
        return token.getAsLong();
    }

    /** Returns the current fencing token of this thread, if any. */
    public static OptionalLong findCurrentToken() {
        Scope innermost = TOKENS.get().peek();
        return innermost == null ? OptionalLong.empty() : OptionalLong.of(innermost.token);
    }

    /**
     * Makes {@code token} this thread's current token until the returned scope is closed (on this thread).
     *
     * @throws IllegalArgumentException if {@code token} is not positive
     */
    public static Scope enter(long token) {
        Deque<Scope> scopes = TOKENS.get();
        Scope scope = new Scope(scopes, FencingTokens.requireValid(token));
        scopes.push(scope);
        return scope;
    }

    /**
     * The span during which a token is current; closing it makes the enclosing one current again. Idempotent. Closing
     * scopes out of order (an outer one first) removes only the closed scope's token: an inner scope still open keeps its
     * token current.
     */
    public static final class Scope implements AutoCloseable {
        private final Deque<Scope> scopes;
        private final long token;
        private boolean closed;

        private Scope(Deque<Scope> scopes, long token) {
            this.scopes = scopes;
            this.token = token;
        }

        @Override
        public void close() {
            if (closed) {
                return;
            }
            closed = true;
            scopes.removeFirstOccurrence(this);
            if (scopes.isEmpty()) {
                TOKENS.remove();
            }
        }
    }
}
