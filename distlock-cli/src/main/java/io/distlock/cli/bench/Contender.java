package io.distlock.cli.bench;

/** One lock implementation under test: a client that runs lock+unlock cycles on named locks. */
public interface Contender extends AutoCloseable {

    /** Returns the name shown in results, e.g. {@code distlock-redis}. */
    String id();

    /** Acquires the named lock for the calling thread, waiting as long as it takes. */
    void lock(String lockName) throws Exception;

    /** Releases the named lock held by the calling thread. */
    void unlock(String lockName) throws Exception;

    /** Acquires the named lock, then releases it: one cycle. */
    default void cycle(String lockName) throws Exception {
        lock(lockName);
        unlock(lockName);
    }

    /** Runs one cycle; returns {when the lock was held, when its release started} in System.nanoTime. */
    default long[] timedCycle(String lockName) throws Exception {
        lock(lockName);
        long acquired = System.nanoTime();
        long releasing = System.nanoTime();
        unlock(lockName);
        return new long[] {acquired, releasing};
    }

    @Override
    void close();
}
