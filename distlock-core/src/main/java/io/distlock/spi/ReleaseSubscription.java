package io.distlock.spi;

/** A running release notification from {@link LockBackend#watchReleases}. */
public interface ReleaseSubscription extends AutoCloseable {

    /** Stops the notifications. Idempotent; never throws. */
    @Override
    void close();
}
