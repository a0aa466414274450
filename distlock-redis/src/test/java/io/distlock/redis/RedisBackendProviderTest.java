package io.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.LockClients;
import org.junit.jupiter.api.Test;

/** How the Redis and RedLock providers read their targets (the providers on real servers: the registry tier of each contract test). */
class RedisBackendProviderTest {
    @Test
    void everyRedisSchemeBelongsToTheRedisProviderAndRedLockHasItsOwn() {
        for (String target : new String[] {"redis://h:1", "REDISS://h:1", "redis-sentinel://h:1#m", "rediss-sentinel://h:1#m",
                "redis-cluster://h:1", "rediss-cluster://h:1"}) {
            assertThat(LockClients.providerFor(target).id()).as(target).isEqualTo("redis");
        }
        assertThat(LockClients.providerFor("redlock://h:1,h:2,h:3").id()).isEqualTo("redlock");
    }

    @Test
    void aRedLockTargetIsOneRedisUriPerNodeWithTheSameCredentialsAndDatabase() {
        assertThat(RedLockBackendProvider.nodes("redlock://u:p@a:1,b:2,c:3/2"))
                .containsExactly("redis://u:p@a:1/2", "redis://u:p@b:2/2", "redis://u:p@c:3/2");
        assertThat(RedLockBackendProvider.nodes("redlocks://a:1,b:2,c:3")).containsExactly("rediss://a:1", "rediss://b:2", "rediss://c:3");
        assertThatThrownBy(() -> RedLockBackendProvider.nodes("redlock://u:secret@a:1,b,c:3"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("host 'b' has no port").hasMessageNotContaining("secret");
        assertThatThrownBy(() -> LockClients.open("redlock://a:1,b:2")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least 3");
    }

    @Test
    void aKeyPrefixWithBracesIsRefusedBeforeConnecting() {
        assertThatThrownBy(() -> LockClients.open("redis-cluster://127.0.0.1:1", "pre{fix}")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("keyPrefix");
    }

    @Test
    void aRedLockTargetsNodeTimeoutIsCheckedAgainstTheLeaseAndAnUnknownParameterIsRefused() {
        // ten node timeouts of 5 s exceed the default 30 s lease: refused before connecting, so the parameter was read
        assertThatThrownBy(() -> LockClients.open("redlock://127.0.0.1:1,127.0.0.1:2,127.0.0.1:3?nodeTimeout=5s"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("nodeTimeout");
        assertThatThrownBy(() -> LockClients.open("redlock://127.0.0.1:1,127.0.0.1:2,127.0.0.1:3?nodetimeout=5s"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unknown parameter 'nodetimeout'").hasMessageContaining("nodeTimeout");
        assertThatThrownBy(() -> LockClients.open("redis://127.0.0.1:1?minReplicas=-1"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'minReplicas' must be a whole number");
    }
}
