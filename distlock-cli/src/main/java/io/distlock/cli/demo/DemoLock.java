package io.distlock.cli.demo;

/** One strategy's lock as the demo workers use it. */
public interface DemoLock {

    /** Blocks until held; returns the hold. {@code waited[0]} is set when the first try failed. */
    Held acquire(boolean[] waited) throws InterruptedException;

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
    DemoLock NONE = waited -> () -> true;
}
