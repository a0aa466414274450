package io.distlock.compat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.redis.RedLockClient;
import io.distlock.redis.RedisLockClient;
import io.distlock.servers.FreePorts;
import org.junit.jupiter.api.Test;

/**
 * The classpath a new user gets from declaring the ZooKeeper 3.9 client before Lettuce 7.7 in a plain
 * Maven build: netty-handler 4.1 next to netty-common and netty-transport 4.2. Without the check, the
 * first lock fails with {@code NoClassDefFoundError: io/netty/channel/socket/SocketProtocolFamily}.
 */
class MixedNettyTest {
    private final String uri = "redis://127.0.0.1:" + FreePorts.next();

    @Test
    void theClasspathUnderTestReallyMixesNettyVersions() {
        assertThat(jarOf("io.netty.handler.ssl.SslHandler")).contains("netty-handler-4.1.");
        assertThat(jarOf("io.netty.util.Version")).contains("netty-common-4.2.");
    }

    @Test
    void createFailsWithAMessageNamingTheJarsAndTheFix() {
        try {
            RedisLockClient.create(uri).close();
        } catch (IllegalStateException e) {
            System.out.println("create() says: " + e.getMessage()); // in target/surefire-reports, for reading
        }
        assertThatThrownBy(() -> RedisLockClient.create(uri))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("netty modules on the classpath are of different versions")
                .hasMessageContaining("netty-handler 4.1.")
                .hasMessageContaining("netty-common 4.2.")
                .hasMessageContaining("netty-handler-4.1.")
                .hasMessageContaining("io.netty:netty-bom:4.2.")
                .hasMessageContaining("io.distlock:distlock-bom");
    }

    @Test
    void redLockFailsTheSameWay() {
        assertThatThrownBy(() -> RedLockClient.create(uri, "redis://127.0.0.1:" + FreePorts.next(), "redis://127.0.0.1:" + FreePorts.next()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("netty modules on the classpath are of different versions");
    }

    private static String jarOf(String className) {
        String resource = className.replace('.', '/') + ".class";
        return String.valueOf(MixedNettyTest.class.getClassLoader().getResource(resource));
    }
}
