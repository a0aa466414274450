package io.distlock.internal;

import io.distlock.BackendUnavailableException;
import io.distlock.LockException;
import io.distlock.spi.LockBackend;
import io.distlock.spi.RefusedUse;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * Waits for backend futures with a hard deadline, so no call can hang on a silent backend, and turns
 * their failures into the API's exceptions with the caller's stack.
 */
final class BackendCalls {
    /** Extra time given to the backend to report its own timeout before the engine gives up. */
    private static final long GRACE_NANOS = TimeUnit.MILLISECONDS.toNanos(250);

    private final LockBackend backend;
    private final long timeoutNanos;

    BackendCalls(LockBackend backend) {
        this.backend = backend;
        this.timeoutNanos = backend.operationTimeout().toNanos();
    }

    /** Waits for the answer; interruptible. */
    <T> T await(CompletableFuture<T> future, String operation, String lockName) throws InterruptedException {
        return await(future, operation, lockName, Long.MAX_VALUE);
    }

    /** Waits for the answer, but no longer than {@code maxNanos} (a caller's wait that ends sooner); interruptible. */
    <T> T await(CompletableFuture<T> future, String operation, String lockName, long maxNanos) throws InterruptedException {
        boolean capped = maxNanos < timeoutNanos + GRACE_NANOS;
        long nanos = capped ? Math.max(0, maxNanos) : timeoutNanos + GRACE_NANOS;
        try {
            return future.get(nanos, TimeUnit.NANOSECONDS);
        } catch (ExecutionException | CompletionException e) {
            throw translate(e.getCause() == null ? e : e.getCause(), operation, lockName);
        } catch (CancellationException e) {
            throw translate(e, operation, lockName);
        } catch (TimeoutException e) {
            throw new BackendUnavailableException(operation + " of lock '" + lockName + "' got no answer from " + backend.describe() + " within "
                    + (capped ? Duration.ofNanos(nanos) + " (what was left of the caller's wait)" : backend.operationTimeout()), e);
        }
    }

    /** Waits for the answer; an interrupt is remembered and re-asserted afterwards. */
    <T> T awaitUninterruptibly(CompletableFuture<T> future, String operation, String lockName) {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return await(future, operation, lockName);
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Waits at most {@code nanos} for the answer, ignoring interrupts (re-asserted after); null if it failed or did not come. */
    <T> @Nullable T awaitQuietly(CompletableFuture<T> future, long nanos) {
        boolean interrupted = false;
        long deadline = System.nanoTime() + nanos;
        try {
            while (true) {
                try {
                    return future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException | CancellationException | TimeoutException e) {
                    return null;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Returns the exception to throw for a failed backend future, with the caller's stack trace. */
    RuntimeException translate(Throwable failure, String operation, String lockName) {
        Throwable cause = failure;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException) && cause.getCause() != null) {
            cause = cause.getCause();
        }
        if (cause instanceof BackendUnavailableException) {
            return new BackendUnavailableException(messageOf(cause), cause);
        }
        if (cause instanceof LockException) {
            return new LockException(messageOf(cause), cause);
        }
        if (cause instanceof RefusedUse) {
            return new RefusedUse(messageOf(cause), cause); // the backend refused a use (a semaphore's permits)
        }
        if (cause instanceof IllegalStateException) {
            return new IllegalStateException(cause.getMessage(), cause);
        }
        return new LockException(operation + " of lock '" + lockName + "' failed on " + backend.describe() + ": " + cause, cause);
    }

    /** Returns the exception's message, or what it is when it has none. */
    private static String messageOf(Throwable failure) {
        String message = failure.getMessage();
        return message == null ? failure.toString() : message;
    }
}
