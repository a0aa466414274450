package io.distlock.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.LockOptions;
import io.distlock.spi.EngineSettings;
import io.distlock.spi.LockBackend;
import io.distlock.spi.OwnerCheck;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** How the engine takes a backend: exactly one way to acquire, and the backend's say on options. */
class BackendCapabilityTest {
    private static final EngineSettings SETTINGS = new EngineSettings(LockOptions.defaults(), Duration.ofSeconds(1), "capability-test");

    @Test
    void aBackendWithoutAWayToAcquireIsRefusedByName() {
        assertThatThrownBy(() -> new EngineLockClient(new NoAcquire(), SETTINGS))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("exactly one of PollingAcquire and QueueingAcquire").hasMessageContaining("neither");
    }

    @Test
    void theBackendChecksTheDefaultOptionsAndEveryLocksOwn() {
        MemoryStore store = new MemoryStore();
        PollingMemoryBackend backend = store.pollingBackend(Duration.ofSeconds(1));
        backend.checkOptionsWith(options -> {
            if (options.leaseTime().compareTo(Duration.ofSeconds(10)) > 0) {
                throw new IllegalArgumentException("leaseTime " + options.leaseTime() + " exceeds the backend's 10 s");
            }
        });
        assertThatThrownBy(() -> new EngineLockClient(backend, SETTINGS)).hasMessageContaining("leaseTime PT30S exceeds");
        try (EngineLockClient client = new EngineLockClient(backend,
                new EngineSettings(LockOptions.builder().leaseTime(Duration.ofSeconds(5)).build(), Duration.ofSeconds(1), "t"))) {
            assertThat(client.getLock("a").options().leaseTime()).isEqualTo(Duration.ofSeconds(5));
            assertThatThrownBy(() -> client.getLock("a", LockOptions.builder().leaseTime(Duration.ofMinutes(1)).build()))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("exceeds the backend's 10 s");
        }
    }

    @Test
    void kindsTheBackendDoesNotStoreAreUnsupportedNamingTheBackend() {
        PollingMemoryBackend backend = new MemoryStore().pollingBackend(Duration.ofSeconds(1));
        try (EngineLockClient client = new EngineLockClient(backend, SETTINGS)) {
            assertThatThrownBy(() -> client.getFairLock("a")).isInstanceOf(UnsupportedOperationException.class)
                    .hasMessageContaining(backend.describe()).hasMessageContaining("fair locks");
            assertThatThrownBy(() -> client.getReadWriteLock("a")).isInstanceOf(UnsupportedOperationException.class)
                    .hasMessageContaining(backend.describe()).hasMessageContaining("read-write locks");
            assertThatThrownBy(() -> client.getSemaphore("a", 2)).isInstanceOf(UnsupportedOperationException.class)
                    .hasMessageContaining(backend.describe()).hasMessageContaining("semaphores");
            assertThat(client.getLock("a").tryLock()).as("the plain lock still works").isTrue();
        }
    }

    /** Implements the storage operations but no way to acquire. */
    private static final class NoAcquire implements LockBackend {
        @Override
        public String describe() {
            return "no-acquire";
        }

        @Override
        public Duration operationTimeout() {
            return Duration.ofSeconds(1);
        }

        @Override
        public CompletableFuture<OwnerCheck> renew(String name, String ownerId, Duration leaseTime) {
            return CompletableFuture.completedFuture(OwnerCheck.MISSING);
        }

        @Override
        public CompletableFuture<OwnerCheck> release(String name, String ownerId) {
            return CompletableFuture.completedFuture(OwnerCheck.MISSING);
        }

        @Override
        public CompletableFuture<Boolean> forceRelease(String name) {
            return CompletableFuture.completedFuture(false);
        }

        @Override
        public CompletableFuture<Boolean> isLocked(String name) {
            return CompletableFuture.completedFuture(false);
        }

        @Override
        public void close() {
        }
    }
}
