package io.distlock.redis;

import io.distlock.spi.AcquireResult;
import io.distlock.spi.LockBackend;
import io.distlock.spi.ReadWriteStorage;
import io.distlock.spi.SemaphoreStorage;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

/** Read-write locks and semaphores on Redis: views of {@code queue.lua}'s queued locks (see {@link RedisQueueStorage}). */
final class RedisQueueKinds implements ReadWriteStorage, SemaphoreStorage {
    private final RedisQueues queues;
    private final Duration timeout;

    RedisQueueKinds(RedisQueues queues, Duration timeout) {
        this.queues = queues;
        this.timeout = timeout;
    }

    @Override
    public LockBackend readers() {
        return new RedisQueueStorage(queues, timeout, RedisQueueStorage.READ_WRITE, 'r', 0);
    }

    @Override
    public LockBackend writers() {
        return new RedisQueueStorage(queues, timeout, RedisQueueStorage.READ_WRITE, 'w', 0);
    }

    @Override
    public CompletableFuture<AcquireResult> downgrade(String name, String writerOwnerId, String readerOwnerId, Duration leaseTime) {
        return queues.grant(RedisQueueStorage.READ_WRITE, 0, "downgrade", name, writerOwnerId, readerOwnerId, RedisQueueStorage.millis(leaseTime));
    }

    @Override
    public CompletableFuture<Integer> forceReleaseAll(String name) {
        return queues.number(RedisQueueStorage.READ_WRITE, 0, "force", "forceUnlock", name, "a", UUID.randomUUID().toString())
                .thenApply(Long::intValue);
    }

    @Override
    public LockBackend withPermits(int permits) {
        return new RedisQueueStorage(queues, timeout, RedisQueueStorage.SEMAPHORE, 's', permits);
    }

    @Override
    public CompletableFuture<Integer> availablePermits(String name, int permits) {
        return queues.number(RedisQueueStorage.SEMAPHORE, permits, "count", "availablePermits", name).thenApply(Long::intValue);
    }
}
