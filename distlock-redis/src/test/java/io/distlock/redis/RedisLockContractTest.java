package io.distlock.redis;

import io.distlock.redis.testing.RedisServerExtension;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.BackendUnavailableException;
import io.distlock.LockClient;
import io.distlock.LockClients;
import io.distlock.testkit.BackendContract;
import io.distlock.testkit.BackendHooks;
import java.time.Duration;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Every tier of the contract, every kind, on a real standalone redis-server. */
class RedisLockContractTest extends BackendContract {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Override
    protected BackendHooks hooks() {
        return RedisHooks.standalone(redis);
    }

    /** What a {@code redis://} target sets besides where the server is. */
    @Nested
    class Targets {
        @Test
        void aTargetsMinReplicasIsAskedOfEveryLockWrite() {
            try (LockClient client = LockClients.open(redis.target() + "?minReplicas=1&replicaAckTimeout=200ms")) {
                // a standalone server has no replica to acknowledge the write
                assertThatThrownBy(() -> client.getLock("targets-" + System.nanoTime()).acquire(Duration.ofSeconds(5)))
                        .isInstanceOf(BackendUnavailableException.class).hasMessageContaining("minReplicas");
            }
        }
    }
}
