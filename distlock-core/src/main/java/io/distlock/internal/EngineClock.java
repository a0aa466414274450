package io.distlock.internal;

import java.util.concurrent.Executor;

/**
 * The engine's time: a monotonic clock and one timer thread. {@link SystemClock} reads
 * {@link System#nanoTime()} and runs a daemon thread; engine tests substitute a manual clock, so that
 * expiry, renewal and loss timing can be driven to the nanosecond without servers or sleeps.
 */
interface EngineClock {

    /** Returns the current reading of the monotonic clock, in nanoseconds. */
    long nanoTime();

    /**
     * Runs {@code task} on the timer thread once {@code delayNanos} have passed. After {@link #shutdown()}
     * the task is dropped and a cancelled handle returned; this never throws.
     */
    Timer schedule(Runnable task, long delayNanos);

    /** Returns an executor that runs tasks on the timer thread (dropping them after shutdown). */
    Executor timerThread();

    /** Stops the timer thread; pending tasks are dropped. */
    void shutdown();

    /** A scheduled task. */
    interface Timer {
        /** Cancels the task if it has not run yet. */
        void cancel();
    }
}
