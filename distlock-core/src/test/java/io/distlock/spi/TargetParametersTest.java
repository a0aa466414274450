package io.distlock.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** A provider's settings in its target's query: taken out by name, the rest left or refused, values checked. */
class TargetParametersTest {

    @Test
    void knownParametersAreTakenOutAndTheRestIsLeftForTheClientLibraryWithTheFragment() {
        TargetParameters parameters = TargetParameters.take("redis-sentinel://h:1?timeout=5s&minReplicas=1&replicaAckTimeout=400ms#master",
                Set.of("minReplicas", "replicaAckTimeout"));

        assertThat(parameters.target()).isEqualTo("redis-sentinel://h:1?timeout=5s#master");
        assertThat(parameters.integer("minReplicas")).hasValue(1);
        assertThat(parameters.duration("replicaAckTimeout")).contains(Duration.ofMillis(400));
        assertThat(TargetParameters.take("redis://h:1?minReplicas=2", Set.of("minReplicas")).target()).isEqualTo("redis://h:1");
        assertThat(TargetParameters.take("redis://h:1", Set.of("minReplicas")).integer("minReplicas")).isEmpty();
    }

    @Test
    void durationsAreMillisecondsSecondsOrMinutes() {
        TargetParameters parameters = TargetParameters.takeAll("zk://h:1?a=250ms&b=4s&c=2m", Set.of("a", "b", "c"), "FORM");

        assertThat(parameters.duration("a")).contains(Duration.ofMillis(250));
        assertThat(parameters.duration("b")).contains(Duration.ofSeconds(4));
        assertThat(parameters.duration("c")).contains(Duration.ofMinutes(2));
        assertThat(parameters.target()).isEqualTo("zk://h:1");
    }

    @Test
    void anUnknownParameterABadValueOrARepeatedOneIsRefusedNamingItAndHidingThePassword() {
        assertThatThrownBy(() -> TargetParameters.takeAll("zk://u:secret@h:1?sessionTimout=4s", Set.of("sessionTimeout", "connectionTimeout"), "FORM"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unknown parameter 'sessionTimout'")
                .hasMessageContaining("connectionTimeout, sessionTimeout").hasMessageContaining("FORM").hasMessageNotContaining("secret");
        assertThatThrownBy(() -> TargetParameters.takeAll("zk://h:1?sessionTimeout=4", Set.of("sessionTimeout"), "FORM").duration("sessionTimeout"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'sessionTimeout' must be a positive duration").hasMessageContaining("'4'");
        assertThatThrownBy(() -> TargetParameters.takeAll("zk://h:1?sessionTimeout=0s", Set.of("sessionTimeout"), "FORM").duration("sessionTimeout"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("positive");
        assertThatThrownBy(() -> TargetParameters.take("redis://h:1?minReplicas=one", Set.of("minReplicas")).integer("minReplicas"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'minReplicas' must be a whole number");
        assertThatThrownBy(() -> TargetParameters.take("redis://h:1?minReplicas=1&minReplicas=2", Set.of("minReplicas")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("given twice");
        assertThatThrownBy(() -> TargetParameters.take("redis://h:1?minReplicas", Set.of("minReplicas")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("has no value");
    }
}
