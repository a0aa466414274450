package io.distlock.fencing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The current token: nested scopes, one thread's token invisible to another, and the refusal outside any scope. */
class FencingContextTest {
    @Test
    void scopesNestAndClosingOneMakesTheEnclosingTokenCurrentAgain() {
        assertThat(FencingContext.findCurrentToken()).isEmpty();
        try (FencingContext.Scope outer = FencingContext.enter(3)) {
            try (FencingContext.Scope inner = FencingContext.enter(8)) {
                assertThat(FencingContext.currentToken()).isEqualTo(8);
                inner.close(); // closing twice pops once
            }
            assertThat(FencingContext.currentToken()).isEqualTo(3);
        }
        assertThat(FencingContext.findCurrentToken()).isEmpty();
    }

    @Test
    void closingAnOuterScopeFirstLeavesTheInnerOnesTokenCurrent() {
        FencingContext.Scope outer = FencingContext.enter(3);
        FencingContext.Scope inner = FencingContext.enter(8);
        outer.close();
        assertThat(FencingContext.currentToken()).as("the inner scope is still open").isEqualTo(8);
        inner.close();
        assertThat(FencingContext.findCurrentToken()).isEmpty();
    }

    @Test
    void anotherThreadDoesNotSeeTheToken() throws Exception {
        try (FencingContext.Scope scope = FencingContext.enter(5)) {
            assertThat(CompletableFuture.supplyAsync(FencingContext::findCurrentToken).get()).isEqualTo(OptionalLong.empty());
        }
    }

    @Test
    void outsideAScopeTheTokenIsRefusedWithWhatToDo() {
        assertThatThrownBy(FencingContext::currentToken).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("@WithLock").hasMessageContaining("FencingContext.enter").hasMessageContaining("lease.fencingToken()");
        assertThatThrownBy(() -> FencingContext.enter(0)).isInstanceOf(IllegalArgumentException.class);
        assertThat(FencingContext.findCurrentToken()).isEmpty();
    }
}
