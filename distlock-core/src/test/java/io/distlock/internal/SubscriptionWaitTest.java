package io.distlock.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.internal.MemoryStore.Op;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** A polling waiter's subscription to release notifications is bounded by the caller's wait, not only by the operation timeout. */
class SubscriptionWaitTest {

    @Test
    void aTryAcquireWhoseReleaseNotificationsDoNotStartReturnsWhenItsWaitEnds() throws Exception {
        MemoryStore store = new MemoryStore();
        Duration timeout = Duration.ofSeconds(10);
        ExecutorService threads = Executors.newSingleThreadExecutor();
        try (LockClient holder = MemoryLockClients.polling(store, timeout, Duration.ofSeconds(1));
                LockClient client = MemoryLockClients.polling(store, timeout, Duration.ofSeconds(1))) {
            Lease held = holder.getLock("a").acquire();
            store.holdReplies(Op.SUBSCRIBE); // the notification channel is down (a LISTEN connection reconnecting)
            Duration wait = Duration.ofMillis(200);
            Future<Optional<Lease>> attempt = threads.submit(() -> client.getLock("a").tryAcquire(wait));
            // acquires answer at once here: only the subscription could hold the call past its wait, and the
            // bound (half an operation timeout) is far more than the call needs, far less than that wait costs
            assertThat(attempt).succeedsWithin(wait.plus(timeout.dividedBy(2))).isEqualTo(Optional.empty());
            assertThat(store.count(Op.SUBSCRIBE, "a")).as("subscriptions asked for").isEqualTo(1);
            store.deliverReplies();
            held.close();
            assertThat(client.getLock("a").tryAcquire(Duration.ofSeconds(5))).as("the lock once free").isPresent().get().satisfies(Lease::close);
        } finally {
            threads.shutdownNow();
        }
    }
}
