package io.distlock.spi;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class TokenRangesTest {

    @Test
    void aCountOfOneToTheMostIsTakenAndAnyOtherIsRefusedNamingTheRange() {
        assertThat(TokenRanges.<Void>refuseCount(1)).isNull();
        assertThat(TokenRanges.<Void>refuseCount(TokenRanges.MAX_TOKENS)).isNull();
        for (int count : new int[] {0, -1, TokenRanges.MAX_TOKENS + 1}) {
            CompletableFuture<Void> refused = TokenRanges.refuseCount(count);
            assertThat(refused).as("count %d", count).isCompletedExceptionally();
            assertThat(refused.handle((ok, failure) -> failure).join()).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("tokens to reserve must be between 1 and " + TokenRanges.MAX_TOKENS + ", was " + count);
        }
    }
}
