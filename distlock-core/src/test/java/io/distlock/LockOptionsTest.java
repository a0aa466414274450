package io.distlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class LockOptionsTest {

    @Test
    void defaultsAreAThirtySecondLeaseRenewedEveryTenSeconds() {
        LockOptions defaults = LockOptions.defaults();
        assertThat(defaults.leaseTime()).isEqualTo(Duration.ofSeconds(30));
        assertThat(defaults.autoRenew()).isTrue();
        assertThat(defaults.renewInterval()).isEqualTo(Duration.ofSeconds(10));
    }

    @Test
    void theBuilderCopiesAndDoesNotMutate() {
        LockOptions shortLease = LockOptions.builder().leaseTime(Duration.ofSeconds(5)).autoRenew(false).build();
        LockOptions changed = shortLease.toBuilder().autoRenew(true).build();
        assertThat(shortLease.autoRenew()).isFalse();
        assertThat(changed.leaseTime()).isEqualTo(Duration.ofSeconds(5));
        assertThat(changed.autoRenew()).isTrue();
        LockOptions equal = LockOptions.builder().leaseTime(Duration.ofSeconds(5)).build();
        assertThat(changed).isEqualTo(equal).hasSameHashCodeAs(equal).isNotEqualTo(shortLease);
        assertThat(changed.hashCode()).as("options that differ in autoRenew hash differently").isNotEqualTo(shortLease.hashCode());
    }

    @Test
    void leaseTimesOutsideTheSupportedRangeAreRejectedByName() {
        LockOptions.Builder builder = LockOptions.builder();
        assertThatThrownBy(() -> builder.leaseTime(null)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("leaseTime");
        assertThatThrownBy(() -> builder.leaseTime(Duration.ZERO)).hasMessageContaining("positive");
        assertThatThrownBy(() -> builder.leaseTime(Duration.ofMillis(-5))).hasMessageContaining("positive");
        assertThatThrownBy(() -> builder.leaseTime(Duration.ofMillis(9))).hasMessageContaining("at least");
        assertThatThrownBy(() -> builder.leaseTime(Duration.ofDays(10_000))).hasMessageContaining("at most");
        assertThat(builder.leaseTime(LockOptions.MIN_LEASE_TIME).build().leaseTime()).isEqualTo(LockOptions.MIN_LEASE_TIME);
    }
}
