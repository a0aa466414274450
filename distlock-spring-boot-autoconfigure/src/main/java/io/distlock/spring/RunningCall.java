package io.distlock.spring;

/**
 * A locked call that a lost lease may interrupt while it runs, and only then: the interrupt never reaches the thread
 * once the call has ended (it would hit whatever the thread does next). Shared by {@code @WithLock} and
 * {@link LockTemplate}.
 */
final class RunningCall {
    private final Thread thread;
    private boolean running = true;

    RunningCall(Thread thread) {
        this.thread = thread;
    }

    /** Interrupts the call if it still runs and {@code interrupt} says so; returns whether it still runs. No I/O inside. */
    synchronized boolean interruptIfRunning(boolean interrupt) {
        if (running && interrupt) {
            thread.interrupt();
        }
        return running;
    }

    /** The call has ended: from now on a loss interrupts nothing. */
    synchronized void finished() {
        running = false;
    }
}
