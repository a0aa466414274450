package io.distlock.redis;

import io.distlock.testkit.LeaseLockContract;
import io.distlock.testkit.LockClientFactory;
import io.distlock.LockKind;
import io.distlock.testkit.RedisServerExtension;
import io.distlock.testkit.TestDeployment;
import java.util.OptionalLong;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The whole lease-lock contract, and arrival order, for fair locks on a real standalone redis-server. */
class RedisFairLockContractTest extends LeaseLockContract {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

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
        return redis;
    }

    @Override
    protected boolean lockedInBackend(String name) {
        return RawLockState.queueHeld(redis.server().port(), name, "fair");
    }

    @Override
    protected OptionalLong lastTokenInBackend(String name) {
        return RawLockState.queueLastToken(redis.server().port(), name, "fair");
    }

    @Override
    protected OptionalLong serverCalls() {
        return OptionalLong.of(RawLockState.commandsProcessed(redis.server().port()));
    }
}
