package io.distlock.cli.demo;

import io.distlock.LockClient;
import io.distlock.LockListener;
import io.distlock.LockOptions;
import io.distlock.cli.options.WorkerArgs;
import io.distlock.servers.ParentJvm;
import io.distlock.servers.deployment.WorkerClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One worker JVM of the demo: several threads that each take the next purchase attempt, lock, read
 * the stock, (maybe suffer a fault), write the stock and record the sale, unlock. It prints READY,
 * starts on GO from the coordinator (stdin), and ends with one RESULT line. It exits if the
 * coordinator goes away (stdin closes), so no worker outlives the demo.
 */
public final class DemoWorker {
    private final Map<String, String> args;
    private final AtomicLong waits = new AtomicLong();
    private final AtomicLong aborted = new AtomicLong();
    private final AtomicLong rejected = new AtomicLong();
    private final AtomicLong lostOnRelease = new AtomicLong();
    private final AtomicLong pauses = new AtomicLong();
    private final AtomicLong stalls = new AtomicLong();

    private DemoWorker(Map<String, String> args) {
        this.args = args;
    }

    /**
     * Arguments as {@code --name value} pairs: store, strategy, threads, attempts, index, seed, lease-ms, stall-rate, and
     * where distlock's locks live (those of {@link WorkerClient}).
     */
    public static void main(String[] argv) throws Exception {
        Map<String, String> args = new HashMap<>();
        for (int i = 0; i + 1 < argv.length; i += 2) {
            args.put(argv[i].replaceFirst("^--", ""), argv[i + 1]);
        }
        new DemoWorker(args).run();
    }

    private void run() throws Exception {
        Strategy strategy = Strategy.fromId(WorkerArgs.required(args, "strategy"));
        int threads = Integer.parseInt(args.get("threads"));
        long attempts = Long.parseLong(args.get("attempts"));
        int index = Integer.parseInt(args.get("index"));
        long leaseMs = Long.parseLong(args.get("lease-ms"));
        Faults faults = new Faults(Long.parseLong(args.get("seed")) * 31 + index, leaseMs, Double.parseDouble(args.get("stall-rate")));

        RedisURI locksUri = RedisURI.create(WorkerArgs.required(args, "store"));
        RedisURI storeUri = RedisURI.create(WorkerArgs.required(args, "store"));
        storeUri.setDatabase(locksUri.getDatabase() + 1);
        RedisClient lettuce = RedisClient.create();
        try (StatefulRedisConnection<String, String> locksConnection = lettuce.connect(locksUri);
                StatefulRedisConnection<String, String> storeConnection = lettuce.connect(storeUri);
                LockClient distlock = strategy.isDistlock() ? distlockClient(leaseMs) : null) {
            StockStore store = new StockStore(storeConnection.sync());
            String lockKey = "demo:lock:" + strategy.id();
            DemoLock lock = switch (strategy) {
                case NO_LOCK -> DemoLock.NONE;
                case SETNX_DEL -> TextbookLocks.setNxDel(locksConnection.sync(), lockKey, leaseMs);
                case GET_THEN_DEL -> TextbookLocks.getThenDel(locksConnection.sync(), lockKey, leaseMs, faults);
                case SETNX_GETSET -> TextbookLocks.setNxGetSet(locksConnection.sync(), lockKey, leaseMs);
                case SHORT_LEASE -> TextbookLocks.shortLease(locksConnection.sync(), lockKey, leaseMs);
                case DISTLOCK, DISTLOCK_FENCED -> new DistlockDemoLock(
                        Objects.requireNonNull(distlock).getLock(lockKey),
                        strategy == Strategy.DISTLOCK_FENCED);
            };

            if (ParentJvm.readyThenAwaitGo().isEmpty()) {
                return; // the coordinator gave up before the race
            }

            List<Thread> workers = new ArrayList<>();
            List<Throwable> failures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                Thread worker = new Thread(() -> {
                    try {
                        buyUntilDone(store, lock, faults, attempts);
                    } catch (Throwable e) {
                        synchronized (failures) {
                            failures.add(e);
                        }
                    }
                }, "buyer-" + t);
                worker.start();
                workers.add(worker);
            }
            for (Thread worker : workers) {
                worker.join();
            }
            if (!failures.isEmpty()) {
                failures.get(0).printStackTrace();
            }
            System.out.println("RESULT waits=" + waits + " aborted=" + aborted + " rejected=" + rejected
                    + " lost=" + lostOnRelease + " pauses=" + pauses + " stalls=" + stalls + " errors=" + failures.size());
            System.out.flush();
        } finally {
            lettuce.shutdown(Duration.ZERO, Duration.ofSeconds(1));
        }
    }

    /** Opens distlock's client where the coordinator said, through the backend registry. */
    private LockClient distlockClient(long leaseMs) {
        LockOptions options = LockOptions.builder().leaseTime(Duration.ofMillis(leaseMs)).build();
        return WorkerClient.from(args).create(options, new LockListener() {});
    }

    private void buyUntilDone(StockStore store, DemoLock lock, Faults faults, long attempts) throws InterruptedException {
        while (store.nextAttempt() <= attempts) {
            DemoLock.Acquired acquired = lock.acquire();
            if (acquired.waited()) {
                waits.incrementAndGet();
            }
            DemoLock.Held held = acquired.held();
            boolean released = false;
            try {
                long stock = store.read(held.token());
                if (stock < 0) {
                    rejected.incrementAndGet(); // fenced read refused: a newer holder has been here
                    continue;
                }
                if (stock == 0) {
                    continue;
                }
                if (faults.slowWork()) {
                    stalls.incrementAndGet();
                }
                if (!held.stillHeld()) {
                    aborted.incrementAndGet(); // the lease ran out during the work: do not write
                    continue;
                }
                if (faults.pauseBeforeWrite()) {
                    pauses.incrementAndGet(); // frozen after the check: the write below is late, and only a fence knows
                }
                if (!store.commit(stock - 1, stock, held.token())) {
                    rejected.incrementAndGet();
                }
            } finally {
                released = held.release();
                if (!released) {
                    lostOnRelease.incrementAndGet();
                }
            }
        }
    }
}
