package io.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockClients;
import io.distlock.OpenOptions;
import io.distlock.redis.testing.RedisServer;
import io.distlock.redis.testing.Resp;
import io.distlock.spi.LockBackendProvider;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Removing a Redis namespace: only the keys of its own layout go, never those of a namespace whose prefix extends it. */
class RedisNamespacesTest {
    private static final LockBackendProvider PROVIDER = LockClients.provider("redis");

    @Test
    void aPrefixThatStartsAnotherNamespacesPrefixRemovesOnlyItsOwnKeys() throws Exception {
        try (RedisServer server = RedisServer.launch();
                LockClient defaults = LockClients.open(server.uri(), (String) null);
                LockClient x = LockClients.open(server.uri(), "x");
                LockClient xy = LockClients.open(server.uri(), "xy")) {
            Resp.call(server.port(), "SET", "x-config", "the application's");
            Lease inDefault = defaults.getLock("report").acquire(Duration.ofSeconds(5));
            Lease inXy = xy.getLock("report").acquire(Duration.ofSeconds(5));
            x.getLock("report").acquire(Duration.ofSeconds(5)).close();
            x.getFairLock("queue").acquire(Duration.ofSeconds(5)).close();

            assertThat(PROVIDER.removeNamespace(server.uri(), OpenOptions.defaults().namespace("x"))).isPositive();
            assertThat(PROVIDER.removeNamespace(server.uri(), OpenOptions.defaults().namespace("distlock")))
                    .as("'distlock' is not the default namespace 'distlock:'").isZero();

            assertThat(Resp.call(server.port(), "KEYS", "x{*")).asList().isEmpty();
            assertThat(Resp.call(server.port(), "GET", "x-config")).isEqualTo("the application's");
            assertThat(xy.getLock("report").isLocked()).as("namespace xy's held lock").isTrue();
            assertThat(defaults.getLock("report").isLocked()).as("the default namespace's held lock").isTrue();
            assertThat(inXy.isValid()).isTrue();
            assertThat(inDefault.isValid()).isTrue();
            inXy.close();
            inDefault.close();
        }
    }

    @Test
    void theDefaultNamespaceAndAnEmptyPrefixAreNeverRemoved() {
        assertThatThrownBy(() -> PROVIDER.removeNamespace("redis://127.0.0.1:1", OpenOptions.defaults()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("never removed");
        assertThatThrownBy(() -> PROVIDER.removeNamespace("redis://127.0.0.1:1", OpenOptions.defaults().namespace("")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("whole server");
    }
}
