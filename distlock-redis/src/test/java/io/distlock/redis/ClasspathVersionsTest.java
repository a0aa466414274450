package io.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/**
 * The Lettuce and netty versions these tests run on are the ones the build means to test: here the ones
 * distlock-redis declares; in compat/, the ones each Spring Boot line or distlock-bom manages. Without it,
 * a build that quietly resolved other versions would pass the compatibility matrix without testing it.
 */
class ClasspathVersionsTest {
    @Test
    void lettuceIsTheExpectedVersion() throws Exception {
        Properties pom = new Properties();
        try (var in = getClass().getClassLoader().getResourceAsStream(NettyClasspath.LETTUCE_POM)) {
            assertThat(in).as("Lettuce's pom.properties on the classpath").isNotNull();
            pom.load(in);
        }
        assertThat(pom.getProperty("version")).startsWith(expected("distlock.expect.lettuce"));
    }

    @Test
    void everyNettyModuleIsTheExpectedVersion() {
        List<NettyClasspath.Module> modules = NettyClasspath.nettyModules(getClass().getClassLoader());
        assertThat(modules).extracting(NettyClasspath.Module::name).contains("netty-common", "netty-handler", "netty-transport");
        assertThat(modules).allSatisfy(module -> assertThat(module.version()).as(module.toString()).startsWith(expected("distlock.expect.netty")));
    }

    @Test
    void theClasspathPassesTheCheckThatCreateRuns() {
        NettyClasspath.check();
    }

    private static String expected(String property) {
        String value = System.getProperty(property);
        assertThat(value).as("system property " + property + " (set by the pom)").isNotBlank();
        return value;
    }
}
