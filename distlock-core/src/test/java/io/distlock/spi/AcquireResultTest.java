package io.distlock.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class AcquireResultTest {

    @Test
    void aGrantNeedsAPositiveTokenAndABusyResultNeverHasANegativeWait() {
        assertThat(AcquireResult.granted(7).fencingToken()).isEqualTo(7);
        assertThatThrownBy(() -> AcquireResult.granted(0)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("token");
        assertThat(AcquireResult.busy(Duration.ofMillis(-1)).holderRemaining()).isEqualTo(Duration.ZERO);
        assertThat(AcquireResult.busy(Duration.ofMillis(40)).granted()).isFalse();
    }

    @Test
    void aNotifiedGrantCarriesItsShortLease() {
        AcquireResult notified = AcquireResult.notified(9, Duration.ofMillis(500));
        assertThat(notified.wasNotified()).isTrue();
        assertThat(notified.notifiedLease()).isEqualTo(Duration.ofMillis(500));
        assertThat(AcquireResult.granted(9).wasNotified()).isFalse();
        assertThatThrownBy(() -> AcquireResult.notified(9, Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("positive lease");
        assertThatThrownBy(() -> new AcquireResult(false, 0, Duration.ZERO, Duration.ofMillis(5)))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
