package io.distlock.cli.bench;

/** One lock implementation under test: a client that runs lock+unlock cycles on named locks. */
public interface Contender extends AutoCloseable {

    /** Returns the name shown in results, e.g. {@code distlock-redis}. */
    String id();

    /** Acquires the named lock, waiting as long as it takes, then releases it: one cycle. */
    void cycle(String lockName) throws Exception;

    @Override
    void close();
}
