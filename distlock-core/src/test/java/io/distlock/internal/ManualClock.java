package io.distlock.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.locks.ReentrantLock;

/**
 * An {@link EngineClock} that moves only when a test says so. Timers run, in due order, on the thread
 * that calls {@link #advance}; the "timer thread" executor runs tasks at once on the calling thread.
 */
public final class ManualClock implements EngineClock {
    private final ReentrantLock lock = new ReentrantLock();
    private final PriorityQueue<Task> tasks = new PriorityQueue<>((a, b) -> a.due != b.due ? Long.compare(a.due, b.due) : Long.compare(a.seq, b.seq));
    private volatile long now = 1_000_000_000L;
    private long seq;
    private boolean shutDown;

    @Override
    public long nanoTime() {
        return now;
    }

    /** Moves the clock forward by {@code step}, running every timer that comes due, in order. */
    public void advance(Duration step) {
        long target = now + step.toNanos();
        while (true) {
            Task next;
            lock.lock();
            try {
                next = tasks.peek();
                if (next == null || next.due > target) {
                    break;
                }
                tasks.poll();
                if (next.due > now) {
                    now = next.due;
                }
            } finally {
                lock.unlock();
            }
            if (!next.cancelled) {
                next.task.run();
            }
        }
        now = target;
    }

    /**
     * Moves the clock forward by {@code step} without running the timers that come due: a process stopped and resumed,
     * whose overdue timers run at the next {@link #advance}, in due order, with whatever the test does first.
     */
    public void jump(Duration step) {
        now += step.toNanos();
    }

    /** Returns the timers still pending (not cancelled). */
    public int pendingTimers() {
        lock.lock();
        try {
            return (int) tasks.stream().filter(t -> !t.cancelled).count();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public Timer schedule(Runnable task, long delayNanos) {
        lock.lock();
        try {
            if (shutDown) {
                return () -> { };
            }
            Task scheduled = new Task(now + Math.max(0, delayNanos), seq++, task);
            tasks.add(scheduled);
            return () -> scheduled.cancelled = true;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public Executor timerThread() {
        return Runnable::run;
    }

    @Override
    public void shutdown() {
        lock.lock();
        try {
            shutDown = true;
            tasks.clear();
        } finally {
            lock.unlock();
        }
    }

    /** Returns the due times of the pending timers, for messages. */
    List<Long> dueTimes() {
        lock.lock();
        try {
            List<Long> due = new ArrayList<>();
            tasks.stream().filter(t -> !t.cancelled).forEach(t -> due.add(t.due - now));
            return due;
        } finally {
            lock.unlock();
        }
    }

    private static final class Task {
        final long due;
        final long seq;
        final Runnable task;
        volatile boolean cancelled;

        Task(long due, long seq, Runnable task) {
            this.due = due;
            this.seq = seq;
            this.task = task;
        }
    }
}
