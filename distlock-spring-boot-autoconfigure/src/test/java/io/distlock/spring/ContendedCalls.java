package io.distlock.spring;

import io.distlock.servers.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Three calls of one locked method of an application, run so that the lock is granted by the server while another thread
 * of the application waits for it: what a local handoff needs (the grant then reserves the handoffs' tokens).
 */
final class ContendedCalls {
    private static final Duration SOON = Duration.ofSeconds(30);

    private ContendedCalls() {
    }

    /**
     * Makes a first call that holds the lock until two more calls wait for it, then lets it go; returns what {@code
     * whileHeld} saw in the two later calls, in the order they held the lock. {@code call} runs the locked method with the
     * work to do under the lock.
     */
    static <T> List<T> secondAndThird(Function<Supplier<T>, T> call, Supplier<T> whileHeld) throws Exception {
        ExecutorService threads = Executors.newCachedThreadPool();
        try {
            CountDownLatch holding = new CountDownLatch(1);
            CountDownLatch letGo = new CountDownLatch(1);
            Future<T> first = threads.submit(() -> call.apply(() -> {
                holding.countDown();
                await(letGo);
                return whileHeld.get();
            }));
            await(holding);
            List<Thread> waiting = new CopyOnWriteArrayList<>();
            List<T> seen = new CopyOnWriteArrayList<>(); // in the order of holds: added under the lock
            List<Future<T>> later = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                later.add(threads.submit(() -> {
                    waiting.add(Thread.currentThread());
                    return call.apply(() -> {
                        T value = whileHeld.get();
                        seen.add(value);
                        return value;
                    });
                }));
            }
            Await.until(SOON, "two calls wait for the lock", () -> waiting.size() == 2 && waiting.stream()
                    .allMatch(t -> t.getState() == Thread.State.WAITING || t.getState() == Thread.State.TIMED_WAITING));
            letGo.countDown();
            first.get(SOON.toSeconds(), TimeUnit.SECONDS);
            for (Future<T> f : later) {
                f.get(SOON.toSeconds(), TimeUnit.SECONDS);
            }
            return seen;
        } finally {
            threads.shutdownNow();
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(SOON.toSeconds(), TimeUnit.SECONDS)) {
                throw new IllegalStateException("not reached within " + SOON);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
