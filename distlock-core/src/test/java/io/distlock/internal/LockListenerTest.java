package io.distlock.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.DistributedLock;
import io.distlock.Lease;
import io.distlock.LeaseLostException;
import io.distlock.LockClient;
import io.distlock.LockListener;
import io.distlock.LockOptions;
import io.distlock.spi.EngineSettings;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** What a client's LockListeners hear, on the in-memory store with injected faults. */
class LockListenerTest {
    private final MemoryStore store = new MemoryStore();
    private final List<String> heard = new CopyOnWriteArrayList<>();

    private final LockListener recorder = new LockListener() {
        @Override
        public void acquired(Lease lease) {
            heard.add("acquired " + lease.lockName() + " " + lease.isValid());
        }

        @Override
        public void renewed(Lease lease) {
            heard.add("renewed " + lease.lockName());
        }

        @Override
        public void renewalFailed(Lease lease, Throwable error) {
            heard.add("renewalFailed " + lease.lockName() + " " + error.getMessage());
        }

        @Override
        public void lost(Lease lease, LeaseLostException loss) {
            heard.add("lost " + lease.lockName() + " " + loss.reason());
        }

        @Override
        public void ended(Lease lease) {
            heard.add("ended " + lease.lockName());
        }
    };

    private LockClient client(LockListener... listeners) {
        EngineSettings settings = new EngineSettings(LockOptions.builder().leaseTime(Duration.ofMillis(600)).build(), Duration.ofSeconds(1),
                "listener-test", List.of(listeners));
        return new EngineLockClient(store.pollingBackend(Duration.ofSeconds(1)), settings);
    }

    @Test
    void anAcquisitionIsHeardOnceHoweverOftenItIsReEnteredAndEndsOnce() throws Exception {
        try (LockClient locks = client(recorder)) {
            DistributedLock lock = locks.getLock("heard");
            try (Lease outer = lock.acquire(); Lease inner = lock.acquire()) {
                outer.close();
                assertThat(heard).containsExactly("acquired heard true");
            }
            assertThat(heard).containsExactly("acquired heard true", "ended heard");
        }
    }

    @Test
    void renewalsTheirFailuresAndALossAreHeard() throws Exception {
        try (LockClient locks = client(recorder); LockClient other = client()) {
            Lease lease = locks.getLock("renewed").acquire();
            Awaiting.until(() -> heard.contains("renewed renewed"));
            store.failNext(MemoryStore.Op.RENEW, new IllegalStateException("store hiccup"));
            Awaiting.until(() -> heard.contains("renewalFailed renewed store hiccup"));
            assertThat(other.getLock("renewed").forceUnlock()).isTrue();
            Awaiting.until(() -> heard.contains("ended renewed"));
            assertThat(heard).containsSubsequence("acquired renewed true", "lost renewed FORCE_UNLOCKED", "ended renewed");
            assertThat(heard.stream().filter(line -> line.startsWith("ended"))).hasSize(1);
            lease.close();
        }
    }

    @Test
    void aFailingListenerDoesNotStopTheLockOrTheOthers() throws Exception {
        LockListener broken = new LockListener() {
            @Override
            public void acquired(Lease lease) {
                throw new IllegalStateException("listener bug");
            }
        };
        try (LockClient locks = client(broken, recorder)) {
            try (Lease lease = locks.getLock("robust").acquire()) {
                assertThat(lease.isValid()).isTrue();
            }
        }
        assertThat(heard).containsExactly("acquired robust true", "ended robust");
    }

    @Test
    void closingTheClientEndsWhatItHeld() throws Exception {
        LockClient locks = client(recorder);
        locks.getLock("at-close").acquire();
        locks.close();
        assertThat(heard).containsExactly("acquired at-close true", "lost at-close CLIENT_CLOSED", "ended at-close");
        assertThatThrownBy(() -> new EngineSettings(LockOptions.defaults(), Duration.ofSeconds(1), "x", java.util.Arrays.asList((LockListener) null)))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
