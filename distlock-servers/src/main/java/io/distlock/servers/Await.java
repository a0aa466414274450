package io.distlock.servers;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Polls a condition until it holds or a deadline passes; tests wait on conditions, not fixed sleeps. */
public final class Await {
    private Await() {}

    /** Waits until {@code condition} holds; fails with {@code description} after {@code timeout}. */
    public static void until(Duration timeout, String description, BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out after " + timeout + " waiting until " + description);
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting until " + description, e);
            }
        }
    }

    /**
     * Like {@link #until}, for a condition that asks a server which may be restarting or may drop the
     * connection (Sentinel closes every client of a server it reconfigures): a condition that throws
     * counts as not yet (checked exceptions included); if the time runs out, the last error is the cause.
     */
    public static void untilAnswered(Duration timeout, String description, ThrowingCondition condition) {
        succeeds(timeout, description, () -> {
            if (!condition.holds()) {
                throw new NotYet();
            }
            return Boolean.TRUE;
        });
    }

    /** Runs {@code action} repeatedly until it stops throwing, up to {@code timeout}; returns its result. */
    public static <T> T succeeds(Duration timeout, String description, ThrowingSupplier<T> action) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            try {
                return action.get();
            } catch (Exception | AssertionError e) {
                if (System.nanoTime() - deadline > 0) {
                    // the last failure in the message too: CI summaries print only the message
                    throw new AssertionError("timed out after " + timeout + " waiting until " + description
                            + (e instanceof NotYet ? "" : " (last: " + e + ")"), e);
                }
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting until " + description, e);
            }
        }
    }

    /** The condition answered, and not yet. */
    private static final class NotYet extends RuntimeException {
        NotYet() {
            super("not yet", null, false, false);
        }
    }

    /** A condition that may throw. */
    @FunctionalInterface
    public interface ThrowingCondition {
        /** Returns whether the condition holds, or throws. */
        boolean holds() throws Exception;
    }

    /** A supplier that may throw. */
    @FunctionalInterface
    public interface ThrowingSupplier<T> {
        /** Returns the value or throws. */
        T get() throws Exception;
    }
}
