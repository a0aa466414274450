package io.distlock.redis;

import io.distlock.LockKind;
import io.distlock.testkit.KindsOfOneNameContract;
import io.distlock.testkit.LockClientFactory;
import io.distlock.testkit.RedisServerExtension;
import io.distlock.testkit.TestDeployment;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The lock kinds of one name are separate locks, with separate keys, on a real standalone redis-server. */
class RedisKindsOfOneNameTest extends KindsOfOneNameContract {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Override
    protected Class<? extends LockClientFactory> factoryClass() {
        return RedisClientFactory.class;
    }

    @Override
    protected TestDeployment deployment() {
        return redis;
    }

    @Override
    protected boolean heldInBackend(String name, LockKind kind) {
        int port = redis.server().port();
        return switch (kind) {
            case LOCK -> RawLockState.held(port, name);
            case FAIR_LOCK -> RawLockState.queueHeld(port, name, "fair");
            case READ_WRITE_LOCK -> RawLockState.queueHeld(port, name, "rw");
            case SEMAPHORE -> RawLockState.queueHeld(port, name, "sem");
        };
    }
}
