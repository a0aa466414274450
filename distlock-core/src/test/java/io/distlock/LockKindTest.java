package io.distlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class LockKindTest {

    @Test
    void everyKindIsReadBackFromItsIdIgnoringCaseAndBlanks() {
        for (LockKind kind : LockKind.values()) {
            assertThat(LockKind.fromId(kind.id())).isEqualTo(kind);
            assertThat(LockKind.fromId("  " + kind.id().toUpperCase(java.util.Locale.ROOT) + " ")).isEqualTo(kind);
        }
        assertThat(Arrays.stream(LockKind.values()).map(LockKind::id).distinct()).hasSize(LockKind.values().length);
        assertThat(LockKind.ids()).isEqualTo("lock, fair-lock, read-write-lock, semaphore");
    }

    @Test
    void anUnknownIdIsRefusedNamingTheKnownOnes() {
        for (String wrong : List.of("rw", "fair", "plain", "", "READ_WRITE_LOCK")) {
            assertThatThrownBy(() -> LockKind.fromId(wrong)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("'" + wrong + "'").hasMessageContaining("lock, fair-lock, read-write-lock, semaphore");
        }
        assertThatThrownBy(() -> LockKind.fromId(null)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("null");
    }
}
