package io.distlock.redis;

import io.distlock.testkit.BackendProviderContract;
import io.distlock.testkit.LeaseLockContract;
import io.distlock.testkit.LockInspectorContract;
import io.distlock.testkit.LockClientFactory;
import io.distlock.LockKind;
import io.distlock.testkit.ReadWriteLockContract;
import io.distlock.testkit.RedisClusterExtension;
import io.distlock.testkit.SemaphoreContract;
import io.distlock.testkit.TestDeployment;
import java.util.OptionalLong;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Fair locks, read-write locks, semaphores and the inspector on a Redis Cluster (three masters, three replicas): every key of one lock in one slot. */
class RedisClusterKindsTest {
    @RegisterExtension
    static final RedisClusterExtension cluster = new RedisClusterExtension();

    static boolean held(String name, String kind) {
        return RawLockState.queueHeld(cluster.cluster().masterOf(RedisKeys.defaults().lockKey(name)).port(), name, kind);
    }

    @Nested
    class Fair extends LeaseLockContract {
        @Override
        protected LockKind kind() {
            return LockKind.FAIR_LOCK;
        }

        @Override
        protected Class<? extends LockClientFactory> factoryClass() {
            return RedisClusterContractTest.Factory.class;
        }

        @Override
        protected TestDeployment deployment() {
            return cluster;
        }

        @Override
        protected boolean lockedInBackend(String name) {
            return held(name, "fair");
        }

        @Override
        protected OptionalLong lastTokenInBackend(String name) {
            return RawLockState.queueLastToken(cluster.cluster().masterOf(RedisKeys.defaults().lockKey(name)).port(), name, "fair");
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
            return RedisClusterContractTest.Factory.class;
        }

        @Override
        protected TestDeployment deployment() {
            return cluster;
        }

        @Override
        protected boolean lockedInBackend(String name) {
            return RawLockState.writerHeld(cluster.cluster().masterOf(RedisKeys.defaults().lockKey(name)).port(), name);
        }

        @Override
        protected OptionalLong lastTokenInBackend(String name) {
            return RawLockState.queueLastToken(cluster.cluster().masterOf(RedisKeys.defaults().lockKey(name)).port(), name, "rw");
        }
    }

    @Nested
    class ReadWrite extends ReadWriteLockContract {
        @Override
        protected Class<? extends LockClientFactory> factoryClass() {
            return RedisClusterContractTest.Factory.class;
        }

        @Override
        protected TestDeployment deployment() {
            return cluster;
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
            return RedisClusterContractTest.Factory.class;
        }

        @Override
        protected TestDeployment deployment() {
            return cluster;
        }

        @Override
        protected boolean lockedInBackend(String name) {
            return held(name, "sem");
        }
    }

    @Nested
    class Inspector extends LockInspectorContract {

        @Override
        protected Class<? extends LockClientFactory> factoryClass() {
            return RedisClusterContractTest.Factory.class;
        }

        @Override
        protected TestDeployment deployment() {
            return cluster;
        }

        @Override
        protected boolean lockedInBackend(String name) {
            return RawLockState.held(cluster.cluster().masterOf(RedisKeys.defaults().lockKey(name)).port(), name);
        }
    }

    /** The registry's {@code redis-cluster://} target: a seed node, the topology discovered from it. */
    @Nested
    class Registry extends BackendProviderContract {
        @Override
        protected String providerId() {
            return "redis";
        }

        @Override
        protected String registryTarget() {
            return cluster.target().replaceFirst("^redis://", "redis-cluster://");
        }
    }
}
