package io.distlock.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class LockNamesTest {

    @Test
    void namesThatEveryBackendCanStoreAreAccepted() {
        assertThat(LockNames.check("order:42")).isEqualTo("order:42");
        assertThat(LockNames.check("}x{}{")).isEqualTo("}x{}{");
        assertThat(LockNames.check("Bestellung \u00e4\u00f6\u00fc \u6ce8\u6587 \ud83d\udd12")).endsWith("\ud83d\udd12");
        assertThat(LockNames.check("x".repeat(LockNames.MAX_LENGTH))).hasSize(LockNames.MAX_LENGTH);
    }

    @Test
    void namesThatWouldCollideOrBreakOnTheWireAreRefusedByName() {
        // why: an unpaired surrogate has no UTF-8 form; Java's encoder writes '?' instead, so these two would be one lock
        assertThat("a\ud800b".getBytes(java.nio.charset.StandardCharsets.UTF_8)).isEqualTo("a?b".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        assertThatThrownBy(() -> LockNames.check("a\ud800b")).hasMessageContaining("unpaired UTF-16 surrogate (at index 1)");
        assertThatThrownBy(() -> LockNames.check("a\udc00")).hasMessageContaining("unpaired UTF-16 surrogate (at index 1)");
        assertThatThrownBy(() -> LockNames.check("tab\there")).hasMessageContaining("control characters (at index 3)");
        assertThatThrownBy(() -> LockNames.check("x".repeat(LockNames.MAX_LENGTH + 1))).hasMessageContaining("at most 1024");
        assertThatThrownBy(() -> LockNames.check(" ")).hasMessageContaining("blank");
        assertThatThrownBy(() -> LockNames.check(null)).hasMessageContaining("null");
    }
}
