package io.distlock.internal;

import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/** The production {@link EngineClock}: {@link System#nanoTime()} and one daemon timer thread per client. */
final class SystemClock implements EngineClock {
    private final ScheduledThreadPoolExecutor timer;

    SystemClock(String threadName) {
        this.timer = new ScheduledThreadPoolExecutor(1, DaemonThreads.named(threadName));
        this.timer.setRemoveOnCancelPolicy(true);
    }

    @Override
    public long nanoTime() {
        return System.nanoTime();
    }

    @Override
    public Timer schedule(Runnable task, long delayNanos) {
        try {
            ScheduledFuture<?> future = timer.schedule(task, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
            return () -> future.cancel(false);
        } catch (RejectedExecutionException shutDown) {
            return () -> { };
        }
    }

    @Override
    public Executor timerThread() {
        return task -> {
            try {
                timer.execute(task);
            } catch (RejectedExecutionException shutDown) {
                // the client is closed: nothing left to do for renewals or notifications
            }
        };
    }

    @Override
    public void shutdown() {
        timer.shutdownNow();
    }
}
