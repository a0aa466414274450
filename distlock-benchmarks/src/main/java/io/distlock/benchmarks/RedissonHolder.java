package io.distlock.benchmarks;

import io.distlock.cli.bench.HoldManyLocks;
import java.util.ArrayList;
import java.util.List;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;

/** hold10k for Redisson: RLock.lock() without a lease time, so Redisson's watchdog renews. */
final class RedissonHolder implements HoldManyLocks.Holder {
    private final RedissonClient redisson;
    private final List<RLock> held = new ArrayList<>();

    RedissonHolder(String uri) {
        redisson = Contenders.redissonOn(uri);
    }

    @Override
    public void hold(String name) {
        RLock lock = redisson.getLock(name);
        lock.lock();
        held.add(lock);
    }

    @Override
    public String keyOf(String name) {
        return name;
    }

    @Override
    public void close() {
        held.forEach(RLock::unlock);
        redisson.shutdown();
    }
}
