package io.distlock.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.LockListener;
import io.distlock.LockOptions;
import io.distlock.OpenOptions;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The options of a client opened from a target: checked when set, immutable, and applied to a backend's builder as set. */
class OpenOptionsTest {

    /** A builder as a backend has one, to see what {@link ClientBuilder#apply} sets. */
    private static final class TestBuilder extends ClientBuilder<TestBuilder> {
        TestBuilder() {
            super(LockOptions.builder().leaseTime(Duration.ofSeconds(30)).build(), Duration.ofSeconds(3));
        }

        @Override
        protected TestBuilder self() {
            return this;
        }

        EngineSettings settings() {
            return engineSettings("test");
        }
    }

    @Test
    void badValuesAreRefusedNamingTheSetting() {
        OpenOptions options = OpenOptions.defaults();
        assertThatThrownBy(() -> options.operationTimeout(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("operationTimeout");
        assertThatThrownBy(() -> options.fallbackPoll(Duration.ofSeconds(-1))).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("fallbackPoll");
        assertThatThrownBy(() -> options.operationTimeout(null)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("operationTimeout");
        assertThatThrownBy(() -> options.lockOptions(null)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lockOptions");
        assertThatThrownBy(() -> options.listener(null)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("listener");
        assertThatThrownBy(() -> options.localHandoffs(-1)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("localHandoffs");
        assertThatThrownBy(() -> options.localHandoffs(LockOptions.MAX_LOCAL_HANDOFFS + 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("localHandoffs");
    }

    @Test
    void localHandoffsApplyOverTheLockOptionsAndLeaveTheBackendsDefaultLeaseAsItIs() {
        TestBuilder handoffsOnly = new TestBuilder().apply(OpenOptions.defaults().localHandoffs(8));
        assertThat(handoffsOnly.lockOptions().localHandoffs()).isEqualTo(8);
        assertThat(handoffsOnly.lockOptionsSet()).as("ZooKeeper and etcd still take their session's lease").isFalse();
        assertThat(handoffsOnly.settings().defaultOptions().localHandoffs()).isEqualTo(8);

        LockOptions leased = LockOptions.builder().leaseTime(Duration.ofSeconds(5)).build();
        TestBuilder both = new TestBuilder().apply(OpenOptions.defaults().localHandoffs(8).lockOptions(leased));
        assertThat(both.lockOptions().leaseTime()).isEqualTo(Duration.ofSeconds(5));
        assertThat(both.lockOptions().localHandoffs()).as("the lock options do not undo it, whatever the order set").isEqualTo(8);
        assertThat(OpenOptions.defaults().localHandoffs()).isEmpty();
    }

    @Test
    void eachSetterReturnsACopyAndLeavesTheOriginal() {
        OpenOptions defaults = OpenOptions.defaults();
        OpenOptions set = defaults.namespace("ns").operationTimeout(Duration.ofSeconds(2)).listener(new LockListener() {});

        assertThat(defaults.namespace()).isEmpty();
        assertThat(defaults.operationTimeout()).isEmpty();
        assertThat(defaults.listeners()).isEmpty();
        assertThat(set.namespace()).contains("ns");
        assertThat(set.operationTimeout()).contains(Duration.ofSeconds(2));
        assertThat(set.listeners()).hasSize(1);
        assertThat(set.namespace(null).namespace()).isEmpty();
    }

    @Test
    void applyingSetsWhatIsSetAndKeepsTheBackendsDefaultsForTheRest() {
        LockListener listener = new LockListener() {};
        LockOptions options = LockOptions.builder().leaseTime(Duration.ofSeconds(5)).autoRenew(false).build();

        TestBuilder untouched = new TestBuilder().apply(OpenOptions.defaults());
        TestBuilder set = new TestBuilder().apply(OpenOptions.defaults().lockOptions(options).operationTimeout(Duration.ofSeconds(9))
                .fallbackPoll(Duration.ofMillis(700)).listener(listener));

        assertThat(untouched.lockOptions().leaseTime()).isEqualTo(Duration.ofSeconds(30));
        assertThat(untouched.lockOptionsSet()).isFalse();
        assertThat(untouched.operationTimeout()).isEqualTo(Duration.ofSeconds(3));
        assertThat(set.lockOptions()).isEqualTo(options);
        assertThat(set.lockOptionsSet()).isTrue();
        assertThat(set.operationTimeout()).isEqualTo(Duration.ofSeconds(9));
        assertThat(set.fallbackPoll()).isEqualTo(Duration.ofMillis(700));
        assertThat(set.settings().listeners()).containsExactly(listener);
    }

    @Test
    void aResourceIsFoundByTypeTheLastOfferedWinsAndNullIsRefused() {
        java.net.PasswordAuthentication first = new java.net.PasswordAuthentication("a", new char[0]);
        java.net.PasswordAuthentication second = new java.net.PasswordAuthentication("b", new char[0]);
        OpenOptions options = OpenOptions.defaults().resource(first).resource("not a credential").resource(second);

        assertThat(options.resourceOf(java.net.PasswordAuthentication.class)).containsSame(second);
        assertThat(options.resourceOf(CharSequence.class)).contains("not a credential");
        assertThat(options.resourceOf(Runnable.class)).isEmpty();
        assertThat(OpenOptions.defaults().resourceOf(Object.class)).as("the defaults offer nothing").isEmpty();
        assertThatThrownBy(() -> OpenOptions.defaults().resource(null)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("resource");
    }
}
