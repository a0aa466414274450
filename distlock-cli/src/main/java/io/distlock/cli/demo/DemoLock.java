package io.distlock.cli.demo;

/** One strategy's lock as the demo workers use it. */
public interface DemoLock {

    /** Blocks until held; returns the hold and whether the first try failed (the buyer had to wait). */
    Acquired acquire() throws InterruptedException;

    /**
     * The outcome of {@link #acquire()}.
     *
     * @param held the hold of the lock
     * @param waited whether someone else held the lock at the first try, so the caller had to wait
     */
    record Acquired(Held held, boolean waited) {}

    /** A hold of the lock. */
    interface Held {
        /** Returns the fencing token to pass to the store, or 0 for unfenced access. */
        default long token() {
            return 0;
        }

        /** Returns whether the holder may still write (only distlock can tell). */
        default boolean stillHeld() {
            return true;
        }

        /** Releases the lock; returns false if the lock turned out to be lost. */
        boolean release() throws InterruptedException;
    }

    /** Strategy 1: no lock at all. */
    DemoLock NONE = () -> new Acquired(() -> true, false);
}
