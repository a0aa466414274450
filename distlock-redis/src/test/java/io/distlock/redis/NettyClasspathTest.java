package io.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.redis.NettyClasspath.Module;
import java.net.URL;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What the classpath check says about netty modules of mixed versions (compat/ runs it on a real mixed classpath). */
class NettyClasspathTest {
    private static Module module(String name, String version) {
        return new Module(name, version, name + "-" + version + ".jar");
    }

    @Test
    void oneMinorVersionPasses() {
        assertThat(NettyClasspath.problem(List.of(module("netty-common", "4.1.125.Final"), module("netty-handler", "4.1.113.Final")),
                "6.8.2.RELEASE")).isNull();
        assertThat(NettyClasspath.problem(List.of(module("netty-common", "4.2.13.Final")), "7.7.0.RELEASE")).isNull();
        assertThat(NettyClasspath.problem(List.of(), "7.7.0.RELEASE")).as("nothing to judge").isNull();
    }

    @Test
    void mixedMinorVersionsNameEveryJarAndTheNewestBom() {
        String problem = NettyClasspath.problem(List.of(module("netty-handler", "4.1.113.Final"), module("netty-common", "4.2.13.Final"),
                module("netty-transport", "4.2.9.Final")), "7.7.0.RELEASE");
        assertThat(problem)
                .contains("Lettuce 7.7.0.RELEASE needs them all at one version")
                .contains("netty-handler 4.1.113.Final (netty-handler-4.1.113.Final.jar)")
                .contains("netty-common 4.2.13.Final (netty-common-4.2.13.Final.jar)")
                .contains("netty-transport 4.2.9.Final")
                .contains("import io.netty:netty-bom:4.2.13.Final")
                .contains("io.distlock:distlock-bom");
    }

    @Test
    void lettuceSevenOnNettyFourOneIsRefused() {
        String problem = NettyClasspath.problem(List.of(module("netty-common", "4.1.125.Final"), module("netty-handler", "4.1.125.Final")),
                "7.5.2.RELEASE");
        assertThat(problem).contains("Lettuce 7.5.2.RELEASE needs netty 4.2").contains("netty-common 4.1.125.Final");
        assertThat(NettyClasspath.problem(List.of(module("netty-common", "4.1.125.Final")), "6.6.0.RELEASE")).isNull();
    }

    @Test
    void minorVersionsCompareAsNumbers() {
        assertThat(NettyClasspath.problem(List.of(module("netty-common", "4.10.0.Final"), module("netty-handler", "4.9.1.Final")), null))
                .contains("import io.netty:netty-bom:4.10.0.Final");
    }

    @Test
    void theJarIsTheFileNameOfAJarUrl() throws Exception {
        assertThat(NettyClasspath.jarOf(new URL("jar:file:/m2/io/netty/netty-common/4.2.13.Final/netty-common-4.2.13.Final.jar!/"
                + NettyClasspath.NETTY_VERSIONS))).isEqualTo("netty-common-4.2.13.Final.jar");
        assertThat(NettyClasspath.jarOf(new URL("file:/classes/" + NettyClasspath.NETTY_VERSIONS))).isEqualTo("file:/classes/" + NettyClasspath.NETTY_VERSIONS);
    }
}
