package io.distlock.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisCredentials;
import io.lettuce.core.RedisURI;
import org.junit.jupiter.api.Test;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;

/** spring.data.redis.* as Boot 3.5 and 4 spell them, read into a URI that Lettuce parses back to the same settings. */
class SpringRedisUriTest {
    private static SpringRedisUri read(String... properties) {
        // a StandardEnvironment, not MockEnvironment: its setProperty changed signature in Spring 7
        Map<String, Object> values = new LinkedHashMap<>();
        for (String property : properties) {
            int equals = property.indexOf('=');
            values.put(property.substring(0, equals), property.substring(equals + 1));
        }
        StandardEnvironment environment = new StandardEnvironment();
        environment.getPropertySources().addFirst(new MapPropertySource("test", values));
        return SpringRedisUri.from(environment);
    }

    /** Through the credentials provider: Lettuce 7 dropped RedisURI.getUsername() and getPassword(). */
    private static RedisCredentials credentials(RedisURI uri) {
        return uri.getCredentialsProvider().resolveCredentials().block();
    }

    @Test
    void nothingSetIsLocalhostOnTheDefaultPort() {
        assertThat(read()).isEqualTo(new SpringRedisUri("redis://localhost:6379", false));
    }

    @Test
    void hostPortCredentialsDatabaseAndSsl() {
        SpringRedisUri uri = read("spring.data.redis.host=cache.internal", "spring.data.redis.port=6380", "spring.data.redis.username=app",
                "spring.data.redis.password=p@ss:w/rd %", "spring.data.redis.database=3", "spring.data.redis.ssl.enabled=true");
        RedisURI parsed = RedisURI.create(uri.uri());
        assertThat(parsed.getHost()).isEqualTo("cache.internal");
        assertThat(parsed.getPort()).isEqualTo(6380);
        RedisCredentials credentials = credentials(parsed);
        assertThat(credentials.getUsername()).isEqualTo("app");
        assertThat(new String(credentials.getPassword())).as("special characters survive").isEqualTo("p@ss:w/rd %");
        assertThat(parsed.getDatabase()).isEqualTo(3);
        assertThat(parsed.isSsl()).isTrue();
        assertThat(uri.cluster()).isFalse();
    }

    @Test
    void aUrlIsTakenAsIs() {
        assertThat(read("spring.data.redis.url=redis://u:p@h:7000/2", "spring.data.redis.host=ignored").uri()).isEqualTo("redis://u:p@h:7000/2");
    }

    @Test
    void sentinelNodesAndMaster() {
        SpringRedisUri uri = read("spring.data.redis.sentinel.master=mymaster", "spring.data.redis.sentinel.nodes=s1:26379, s2:26380",
                "spring.data.redis.password=secret", "spring.data.redis.database=1");
        RedisURI parsed = RedisURI.create(uri.uri());
        assertThat(parsed.getSentinelMasterId()).isEqualTo("mymaster");
        assertThat(parsed.getSentinels()).extracting(RedisURI::getHost, RedisURI::getPort)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("s1", 26379), org.assertj.core.groups.Tuple.tuple("s2", 26380));
        assertThat(new String(credentials(parsed).getPassword())).isEqualTo("secret");
        assertThat(parsed.getDatabase()).isEqualTo(1);
    }

    @Test
    void clusterNodesMakeAClusterSeededByTheFirstNode() {
        SpringRedisUri uri = read("spring.data.redis.cluster.nodes=n1:7000,n2:7001", "spring.data.redis.password=pw");
        assertThat(uri.cluster()).isTrue();
        assertThat(uri.uri()).isEqualTo("redis://pw@n1:7000");
    }
}
