package io.distlock.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The engine's own threads stay few, whatever the load: event threads, timer chains. */
class EngineThreadsTest {

    @Test
    void blockingLossListenersUseAtMostTheEventThreadsAndAllRunInTheEnd() throws Exception {
        MemoryStore store = new MemoryStore();
        LockClient client = MemoryLockClients.polling(store, Duration.ofSeconds(1), Duration.ofSeconds(1));
        CountDownLatch unblock = new CountDownLatch(1);
        AtomicInteger told = new AtomicInteger();
        int leases = 50;
        for (int i = 0; i < leases; i++) {
            Lease lease = client.getLock("lost-" + i).acquire();
            lease.onLost(lost -> {
                told.incrementAndGet();
                try {
                    unblock.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
        }
        for (int i = 0; i < leases; i++) {
            assertThat(client.getLock("lost-" + i).forceUnlock()).isTrue(); // each holder learns at once, on an event thread
        }
        Awaiting.until(() -> told.get() == EngineContext.EVENT_THREADS);
        assertThat(threadsNamed("distlock-memory-events")).as("event threads while every listener blocks")
                .isEqualTo(EngineContext.EVENT_THREADS);
        unblock.countDown();
        Awaiting.until(() -> told.get() == leases);
        client.close();
    }

    @Test
    void renewalsRacingNewLeasesKeepOneTimerChain() throws Exception {
        MemoryStore store = new MemoryStore();
        CountingClock clock = new CountingClock(new SystemClock("race-timer"));
        try (EngineLockClient client = MemoryLockClients.client(store.pollingBackend(Duration.ofSeconds(1)),
                LockOptions.builder().leaseTime(Duration.ofMillis(60)).build(), clock)) {
            Lease longLease = client.getLock("long", LockOptions.builder().leaseTime(Duration.ofMinutes(5)).build()).acquire();
            ExecutorService threads = Executors.newFixedThreadPool(4);
            List<Future<?>> workers = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                int thread = t;
                workers.add(threads.submit(() -> {
                    long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1500);
                    for (int i = 0; System.nanoTime() < until; i++) {
                        Lease lease = client.getLock("short-" + thread + "-" + (i % 8)).acquire();
                        if (i % 3 == 0) {
                            Thread.sleep(25); // held past its first renewal (every 20 ms)
                        }
                        lease.close();
                    }
                    return null;
                }));
            }
            for (Future<?> worker : workers) {
                worker.get(30, TimeUnit.SECONDS);
            }
            threads.shutdown();
            Awaiting.until(() -> client.heldCount() == 1);
            Thread.sleep(100); // let ticks that were due for the short leases run out
            assertThat(clock.live()).as("timers still scheduled with only the long lease held").isEqualTo(1);
            longLease.close();
        }
    }

    private static long threadsNamed(String prefix) {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith(prefix) && t.isAlive()).count();
    }

    /** Counts the timers that are scheduled and have neither run nor been cancelled. */
    private static final class CountingClock implements EngineClock {
        private final EngineClock delegate;
        private final AtomicInteger live = new AtomicInteger();

        CountingClock(EngineClock delegate) {
            this.delegate = delegate;
        }

        int live() {
            return live.get();
        }

        @Override
        public long nanoTime() {
            return delegate.nanoTime();
        }

        @Override
        public Timer schedule(Runnable task, long delayNanos) {
            java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();
            live.incrementAndGet();
            Timer timer = delegate.schedule(() -> {
                if (done.compareAndSet(false, true)) {
                    live.decrementAndGet();
                }
                task.run();
            }, delayNanos);
            return () -> {
                timer.cancel();
                if (done.compareAndSet(false, true)) {
                    live.decrementAndGet();
                }
            };
        }

        @Override
        public java.util.concurrent.Executor timerThread() {
            return delegate.timerThread();
        }

        @Override
        public void shutdown() {
            delegate.shutdown();
        }
    }
}
