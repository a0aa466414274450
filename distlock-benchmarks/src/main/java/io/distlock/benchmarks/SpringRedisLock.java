package io.distlock.benchmarks;

import io.distlock.cli.bench.Contender;
import io.lettuce.core.RedisURI;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.Lock;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.integration.redis.util.RedisLockRegistry;

/** Spring Integration's RedisLockRegistry, in its spin or pub/sub mode, on Spring Data Redis + Lettuce. */
final class SpringRedisLock implements Contender {
    private final String id;
    private final LettuceConnectionFactory connections;
    private final RedisLockRegistry registry;
    private final Map<String, Lock> locks = new ConcurrentHashMap<>();

    SpringRedisLock(String id, String redisUri, boolean pubSub) {
        this.id = id;
        RedisURI uri = RedisURI.create(redisUri);
        connections = new LettuceConnectionFactory(new RedisStandaloneConfiguration(uri.getHost(), uri.getPort()));
        connections.afterPropertiesSet();
        connections.start();
        registry = new RedisLockRegistry(connections, "spring-bench", 30_000);
        registry.setRedisLockType(pubSub ? RedisLockRegistry.RedisLockType.PUB_SUB_LOCK : RedisLockRegistry.RedisLockType.SPIN_LOCK);
    }

    @Override
    public String id() {
        return id;
    }

    @Override
    public void lock(String lockName) {
        locks.computeIfAbsent(lockName, registry::obtain).lock();
    }

    @Override
    public void unlock(String lockName) {
        locks.get(lockName).unlock();
    }

    @Override
    public void close() {
        registry.destroy();
        connections.stop();
        connections.destroy();
    }
}
