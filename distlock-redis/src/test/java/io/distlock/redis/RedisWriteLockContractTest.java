package io.distlock.redis;

import io.distlock.testkit.LeaseLockContract;
import io.distlock.testkit.LockClientFactory;
import io.distlock.LockKind;
import io.distlock.testkit.RedisServerExtension;
import io.distlock.testkit.TestDeployment;
import java.util.OptionalLong;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The whole lease-lock contract, and arrival order, for the write side of read-write locks on a real standalone redis-server. */
class RedisWriteLockContractTest extends LeaseLockContract {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

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
        return redis;
    }

    @Override
    protected boolean lockedInBackend(String name) {
        return RawLockState.writerHeld(redis.server().port(), name);
    }

    @Override
    protected OptionalLong lastTokenInBackend(String name) {
        return RawLockState.queueLastToken(redis.server().port(), name, "rw");
    }

    @Override
    protected OptionalLong serverCalls() {
        return OptionalLong.of(RawLockState.commandsProcessed(redis.server().port()));
    }
}
