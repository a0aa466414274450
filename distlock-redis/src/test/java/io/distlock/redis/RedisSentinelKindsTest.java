package io.distlock.redis;

import io.distlock.testkit.BackendProviderContract;
import io.distlock.testkit.LeaseLockContract;
import io.distlock.testkit.LockInspectorContract;
import io.distlock.testkit.LockClientFactory;
import io.distlock.LockKind;
import io.distlock.testkit.ReadWriteLockContract;
import io.distlock.testkit.RedisSentinelExtension;
import io.distlock.testkit.SemaphoreContract;
import io.distlock.testkit.TestDeployment;
import java.util.OptionalLong;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Fair locks, write locks, read-write locks, semaphores and the inspector through Sentinel (a master, one replica, three Sentinels). */
class RedisSentinelKindsTest {
    @RegisterExtension
    static final RedisSentinelExtension sentinel = new RedisSentinelExtension();

    static boolean held(String name, String kind) {
        return RawLockState.queueHeld(sentinel.group().servers().get(0).port(), name, kind);
    }

    @Nested
    class Fair extends LeaseLockContract {
        @Override
        protected LockKind kind() {
            return LockKind.FAIR_LOCK;
        }

        @Override
        protected Class<? extends LockClientFactory> factoryClass() {
            return RedisClientFactory.class;
        }

        @Override
        protected TestDeployment deployment() {
            return sentinel;
        }

        @Override
        protected boolean lockedInBackend(String name) {
            return held(name, "fair");
        }

        @Override
        protected OptionalLong lastTokenInBackend(String name) {
            return RawLockState.queueLastToken(sentinel.group().servers().get(0).port(), name, "fair");
        }
    }

    @Nested
    class Write extends LeaseLockContract {
        @Override
        protected LockKind kind() {
            return LockKind.READ_WRITE_LOCK;
        }

        @Override
        protected Class<? extends LockClientFactory> factoryClass() {
            return RedisClientFactory.class;
        }

        @Override
        protected TestDeployment deployment() {
            return sentinel;
        }

        @Override
        protected boolean lockedInBackend(String name) {
            return RawLockState.writerHeld(sentinel.group().servers().get(0).port(), name);
        }

        @Override
        protected OptionalLong lastTokenInBackend(String name) {
            return RawLockState.queueLastToken(sentinel.group().servers().get(0).port(), name, "rw");
        }
    }

    @Nested
    class Inspector extends LockInspectorContract {

        @Override
        protected Class<? extends LockClientFactory> factoryClass() {
            return RedisClientFactory.class;
        }

        @Override
        protected TestDeployment deployment() {
            return sentinel;
        }

        @Override
        protected boolean lockedInBackend(String name) {
            return RawLockState.held(sentinel.group().servers().get(0).port(), name);
        }
    }

    @Nested
    class ReadWrite extends ReadWriteLockContract {
        @Override
        protected Class<? extends LockClientFactory> factoryClass() {
            return RedisClientFactory.class;
        }

        @Override
        protected TestDeployment deployment() {
            return sentinel;
        }

        @Override
        protected boolean lockedInBackend(String name) {
            return held(name, "rw");
        }
    }

    @Nested
    class Semaphore extends SemaphoreContract {
        @Override
        protected Class<? extends LockClientFactory> factoryClass() {
            return RedisClientFactory.class;
        }

        @Override
        protected TestDeployment deployment() {
            return sentinel;
        }

        @Override
        protected boolean lockedInBackend(String name) {
            return held(name, "sem");
        }
    }

    /** The registry's {@code redis-sentinel://} target. */
    @Nested
    class Registry extends BackendProviderContract {
        @Override
        protected String providerId() {
            return "redis";
        }

        @Override
        protected String registryTarget() {
            return sentinel.target();
        }
    }
}
