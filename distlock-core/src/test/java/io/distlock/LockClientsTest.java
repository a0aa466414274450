package io.distlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.LockKind;
import io.distlock.OpenOptions;
import io.distlock.spi.LockBackendProvider;
import io.distlock.spi.TargetUri;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How the registry finds a backend for a target, and what it says when none fits. */
class LockClientsTest {

    @Test
    void aTargetGoesToTheProviderOfTheLongestSchemeItStartsWith() {
        assertThat(LockClients.providerFor("test://h:1").id()).isEqualTo("test");
        assertThat(LockClients.providerFor("TEST-special://h:1").id()).isEqualTo("test-special");
        assertThat(LockClients.providerFor("test:special:x").id()).isEqualTo("test-special");
        assertThat(LockClients.providers()).extracting(LockBackendProvider::id).containsExactly("test", "test-special");
    }

    @Test
    void anUnknownSchemeIsRefusedListingTheKnownOnesWithoutThePassword() {
        assertThatThrownBy(() -> LockClients.open("mongodb://user:secret@h:1")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("mongodb://user:***@h:1").hasMessageContaining("test:, test-special:, test:special:")
                .hasMessageNotContaining("secret");
        assertThatThrownBy(() -> LockClients.open("testing://h:1")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no backend on the classpath opens");
    }

    @Test
    void aBlankTargetOrAnUnknownIdIsRefusedNamingTheChoices() {
        assertThatThrownBy(() -> LockClients.open(" ")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("target must not be blank").hasMessageContaining("test://h:1");
        assertThatThrownBy(() -> LockClients.open(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> LockClients.provider("redis")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown backend 'redis'").hasMessageContaining("test, test-special");
        assertThat(LockClients.find("TEST")).map(LockBackendProvider::id).contains("test");
        assertThat(LockClients.find(null)).isEmpty();
    }

    @Test
    void theTargetAndTheNamespaceReachTheProvider() {
        assertThatThrownBy(() -> LockClients.open("test://h:1", "ns")).isInstanceOf(UnsupportedOperationException.class)
                .hasMessage("open test://h:1 in ns");
    }

    @Test
    void aHostListParsesWithItsUserInfoAndPathAndAHostWithoutPortIsRefused() {
        TargetUri parsed = TargetUri.parse("zk://u:p@a:1,b:2/chroot/x", "FORM");
        assertThat(parsed).isEqualTo(new TargetUri("zk", "u", "p", List.of("a:1", "b:2"), "/chroot/x"));
        assertThat(TargetUri.parse("etcd://a:1", "FORM")).isEqualTo(new TargetUri("etcd", null, null, List.of("a:1"), ""));
        assertThatThrownBy(() -> TargetUri.parse("zk://a:1,,b:2", "FORM")).hasMessageContaining("a blank host");
        assertThatThrownBy(() -> TargetUri.parse("zk://u:secret@a:x", "FORM")).hasMessageContaining("host 'a:x' has no port")
                .hasMessageContaining("must look like FORM").hasMessageNotContaining("secret");
        assertThatThrownBy(() -> TargetUri.parse("a:1", "FORM")).hasMessageContaining("no scheme://");
        assertThat(TargetUri.mask("jdbc:postgresql://h/db?user=a&password=secret&ssl=true")).isEqualTo("jdbc:postgresql://h/db?user=a&password=***&ssl=true");
    }

    /** A provider for these tests, registered in the test resources. */
    public static class TestProvider implements LockBackendProvider {
        @Override
        public String id() {
            return "test";
        }

        @Override
        public String description() {
            return "for tests";
        }

        @Override
        public List<String> schemes() {
            return List.of("test");
        }

        @Override
        public List<String> exampleTargets() {
            return List.of("test://h:1");
        }


        @Override
        public LockClient open(String target, OpenOptions options) {
            throw new UnsupportedOperationException("open " + target + " in " + options.namespace().orElse("the default namespace"));
        }
    }

    /** A second provider whose schemes are longer forms of the first's. */
    public static final class SpecialProvider extends TestProvider {
        @Override
        public String id() {
            return "test-special";
        }

        @Override
        public List<String> schemes() {
            return List.of("test-special", "test:special");
        }
    }
}
