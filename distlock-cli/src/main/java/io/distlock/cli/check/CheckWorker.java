package io.distlock.cli.check;

import io.distlock.DistributedLock;
import io.distlock.DistributedReadWriteLock;
import io.distlock.DistributedSemaphore;
import io.distlock.Lease;
import io.distlock.LeaseLostException;
import io.distlock.LockClient;
import io.distlock.LockKind;
import io.distlock.LockListener;
import io.distlock.LockOptions;
import io.distlock.checker.Checker;
import io.distlock.checker.Event;
import io.distlock.checker.Event.Type;
import io.distlock.checker.History;
import io.distlock.checker.Operation;
import io.distlock.cli.demo.DemoLock;
import io.distlock.cli.demo.TextbookLocks;
import io.distlock.cli.options.WorkerArgs;
import io.distlock.fencing.StaleTokenException;
import io.distlock.fencing.redis.FencedRedis;
import io.distlock.servers.ParentJvm;
import io.distlock.servers.deployment.Deployment;
import io.distlock.servers.deployment.WorkerClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One client process of {@code distlock check}: lock, read-modify-write the unfenced register, write to
 * the fenced store, unlock, in a loop. A shared hold (a read lock, a semaphore permit) reads the register,
 * works and releases, writing nothing. Every step is printed as an {@link Event} line stamped with
 * {@code System.nanoTime()}, the clock all processes on the machine share. Starts on GO (stdin), exits
 * when stdin closes.
 */
public final class CheckWorker {
    /** The name of the lock every worker checks. */
    static final String LOCK_NAME = Deployment.LOCK_NAME;
    static final String REGISTER = "check:register";
    /** The fenced store: a log every holder appends to through distlock-fencing, which refuses stale tokens. */
    static final String FENCED_LOG = "check:fenced-log";
    private static final String NAIVE_LOCK_KEY = "check:naive-lock";

    /** One line and its flush at a time, from every thread of the process. */
    private static final ReentrantLock OUTPUT = new ReentrantLock();
    /**
     * The events' way to the coordinator: stdout, written directly rather than through {@code System.out}, whose
     * PrintStream swallows a failed write (it only sets an error flag): a failed write ends the process, naming the
     * failure, instead of letting it run on unrecorded. (Soaks that lost seconds of one process's events lost them in the
     * coordinator, not here: the JDK dropped what a killed worker's pipe still held; see ChildJvm.)
     */
    private static final java.io.Writer EVENTS = new java.io.OutputStreamWriter(new java.io.FileOutputStream(java.io.FileDescriptor.out),
            java.nio.charset.StandardCharsets.UTF_8);
    /** The exit code of a worker that could not record an event, or whose thread died of an uncaught throwable. */
    static final int EXIT_UNRECORDED = 71;
    private static final LinkedBlockingQueue<String> LISTENER_LINES = new LinkedBlockingQueue<>();
    /** The recorded process id of the thread running a loop. */
    private static final ThreadLocal<Integer> LOOP_PROCESS = new ThreadLocal<>();
    /** Which thread's process holds a token now, for the lease events the watchdog thread records. */
    private static final Map<Long, Integer> PROCESS_BY_TOKEN = new ConcurrentHashMap<>();

    private final int process;
    private final Random random;
    /** An acquire is running (for the queue watch); and whether its QUEUED was recorded. */
    private volatile boolean acquiring;
    private volatile boolean queuedSeen;

    private CheckWorker(int process, long seed) {
        this.process = process;
        this.random = new Random(seed * 7919 + process);
    }

    /**
     * Arguments as {@code --name value}: process, lock, kind, permits, store, lease-ms, seed, threads (loops sharing the
     * one client, each recorded as a process of its own: {@code process + t * History.THREAD_STRIDE}), local-handoffs,
     * and the deployment's client (see {@link WorkerClient#args()}).
     */
    public static void main(String[] argv) throws Exception {
        Map<String, String> args = new HashMap<>();
        for (int i = 0; i + 1 < argv.length; i += 2) {
            args.put(argv[i].replaceFirst("^--", ""), argv[i + 1]);
        }
        // a thread that dies unseen would leave the process running without it (a loop's holds unrecorded, or no lease lines)
        Thread.setDefaultUncaughtExceptionHandler((thread, failure) -> halt("thread " + thread.getName() + " died", failure));
        Thread printer = new Thread(CheckWorker::printListenerLines, "lease-lines");
        printer.setDaemon(true);
        printer.start();
        run(args, Integer.parseInt(args.get("process")), Long.parseLong(args.get("seed")));
    }

    private static void run(Map<String, String> args, int process, long seed) throws Exception {
        CheckedLock checked = CheckedLock.fromId(WorkerArgs.required(args, "lock"));
        LockKind kind = LockKind.fromId(args.getOrDefault("kind", LockKind.LOCK.id()));
        int permits = Integer.parseInt(args.getOrDefault("permits", "1"));
        int threads = Integer.parseInt(args.getOrDefault("threads", "1"));
        long leaseMs = Long.parseLong(args.get("lease-ms"));
        WorkerClient client = WorkerClient.from(args);
        LockOptions options = LockOptions.builder().leaseTime(Duration.ofMillis(leaseMs))
                .localHandoffs(Integer.parseInt(args.getOrDefault("local-handoffs", "0"))).build();
        RedisClient lettuce = RedisClient.create();
        RedisURI storeUri = RedisURI.create(args.get("store"));
        storeUri.setTimeout(Duration.ofSeconds(2));
        try (StatefulRedisConnection<String, String> store = lettuce.connect(storeUri);
                LockClient distlock = checked == CheckedLock.DISTLOCK ? client.create(options, leaseRecorder()) : null;
                StatefulRedisConnection<String, String> naive = checked == CheckedLock.DISTLOCK ? null : lettuce.connect(naiveUri(client))) {
            List<CheckWorker> loops = new ArrayList<>();
            List<Locker> lockers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                CheckWorker loop = new CheckWorker(process + t * History.THREAD_STRIDE, seed);
                loops.add(loop);
                lockers.add(switch (checked) {
                    case DISTLOCK -> loop.distlockLocker(Objects.requireNonNull(distlock), kind, permits, leaseMs);
                    case NAIVE_SET_NX -> naiveLocker(TextbookLocks.shortLease(Objects.requireNonNull(naive).sync(), NAIVE_LOCK_KEY, leaseMs));
                    case NAIVE_GETSET -> naiveLocker(TextbookLocks.setNxGetSet(Objects.requireNonNull(naive).sync(), NAIVE_LOCK_KEY, leaseMs));
                });
            }
            if (ParentJvm.readyThenAwaitGo().isEmpty()) {
                return; // the coordinator gave up before the run
            }
            RedisCommands<String, String> commands = store.sync();
            FencedRedis fenced = FencedRedis.on(commands);
            int backgroundLocks = Integer.parseInt(args.getOrDefault("background-locks", "0"));
            if (backgroundLocks > 0) {
                holdInBackground(Objects.requireNonNull(distlock), process, backgroundLocks);
            }
            int churnThreads = Integer.parseInt(args.getOrDefault("churn-threads", "0"));
            for (int t = 0; t < churnThreads; t++) {
                churn(Objects.requireNonNull(distlock), process, t);
            }
            List<Thread> running = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                CheckWorker loop = loops.get(t);
                Locker locker = lockers.get(t);
                Thread thread = new Thread(() -> {
                    LOOP_PROCESS.set(loop.process);
                    if (kind == LockKind.FAIR_LOCK || kind == LockKind.READ_WRITE_LOCK) {
                        loop.watchQueueing(Thread.currentThread());
                    }
                    try {
                        loop.loop(locker, commands, fenced, leaseMs);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }, "check-loop-" + t);
                thread.setDaemon(true); // the process ends when stdin closes (ParentJvm), wherever the loops are
                thread.start();
                running.add(thread);
            }
            for (Thread thread : running) {
                thread.join();
            }
        } finally {
            lettuce.shutdown(Duration.ZERO, Duration.ofSeconds(1));
        }
    }

    /**
     * Holds {@code count} other locks on {@code distlock} for the rest of the run, from a daemon thread that takes each
     * again when it was lost (they are renewed with the checked lock, in the same batches where due together). Not
     * recorded: the checker judges the checked lock only.
     */
    private static void holdInBackground(LockClient distlock, int process, int count) {
        Thread keeper = new Thread(() -> {
            Lease[] held = new Lease[count];
            while (!Thread.currentThread().isInterrupted()) {
                for (int i = 0; i < count; i++) {
                    Lease lease = held[i];
                    if (lease == null || !lease.isValid()) {
                        if (lease != null) {
                            try {
                                lease.close();
                            } catch (RuntimeException lostAlready) {
                                // told already
                            }
                        }
                        try {
                            held[i] = distlock.getLock(LOCK_NAME + "-background-" + process + "-" + i).tryAcquire(Duration.ofMillis(200)).orElse(null);
                        } catch (RuntimeException unavailable) {
                            held[i] = null; // a fault: tried again on the next round
                        } catch (InterruptedException e) {
                            return;
                        }
                    }
                }
                java.util.concurrent.locks.LockSupport.parkNanos(java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(50));
            }
        }, "check-background-locks");
        keeper.setDaemon(true);
        keeper.start();
    }

    /**
     * Acquires and releases other locks on {@code distlock} for the rest of the run, from a daemon thread (eight names of
     * its own in turn), so that the checked lock's acquires and releases share combined statements with theirs. Not
     * recorded: the checker judges the checked lock only; a fault's failure is tried again on the next name.
     */
    private static void churn(LockClient distlock, int process, int thread) {
        Thread churner = new Thread(() -> {
            for (long i = 0; !Thread.currentThread().isInterrupted(); i++) {
                try {
                    distlock.getLock(LOCK_NAME + "-churn-" + process + "-" + thread + "-" + (i % 8)).tryAcquire(Duration.ofMillis(200))
                            .ifPresent(Lease::close);
                } catch (RuntimeException unavailable) {
                    java.util.concurrent.locks.LockSupport.parkNanos(java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(50)); // a fault
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "check-churn-" + thread);
        churner.setDaemon(true);
        churner.start();
    }

    /**
     * Records each lease's local deadline when it is granted and after each confirmed renewal (a {@link Operation#LEASE}
     * event) under the process id of the loop that holds it: the checker allows an overlap only after a holder's
     * recorded deadline had passed. A grant is told on the acquiring thread; renewals on the watchdog's, which finds
     * the holder by its token.
     */
    private static LockListener leaseRecorder() {
        return new LockListener() {
            @Override
            public void acquired(Lease lease) {
                Integer process = LOOP_PROCESS.get();
                if (process != null && LOCK_NAME.equals(lease.lockName())) {
                    PROCESS_BY_TOKEN.put(lease.fencingToken(), process);
                    recordDeadline(process, lease);
                }
            }

            @Override
            public void renewed(Lease lease) {
                if (!LOCK_NAME.equals(lease.lockName())) {
                    return; // a background lock: its token may equal a checked one's on another name
                }
                Integer process = PROCESS_BY_TOKEN.get(lease.fencingToken());
                if (process != null) {
                    recordDeadline(process, lease);
                }
            }

            @Override
            public void lost(Lease lease, LeaseLostException loss) {
                if (LOCK_NAME.equals(lease.lockName())) {
                    PROCESS_BY_TOKEN.remove(lease.fencingToken());
                }
            }

            @Override
            public void ended(Lease lease) {
                if (LOCK_NAME.equals(lease.lockName())) {
                    PROCESS_BY_TOKEN.remove(lease.fencingToken());
                }
            }
        };
    }

    /**
     * Stamps the event at once but prints it from a thread of its own: listeners run on the client's watchdog,
     * which must not wait for the pipe to the coordinator.
     */
    private static void recordDeadline(int process, Lease lease) {
        long now = System.nanoTime();
        LISTENER_LINES.add(new Event(now, process, Type.INFO, Operation.LEASE, lease.fencingToken(), now + lease.remaining().toNanos(), "")
                .toLine());
    }

    private static void printListenerLines() {
        try {
            while (true) {
                print(LISTENER_LINES.take());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The textbook locks talk to plain Redis: the target of the deployments that support them is a Redis URI. */
    private static RedisURI naiveUri(WorkerClient client) {
        RedisURI uri = RedisURI.create(client.target());
        uri.setTimeout(Duration.ofSeconds(1));
        return uri;
    }

    /** A lock as the loop uses it. */
    private interface Locker {
        /**
         * Returns whether the next acquisition takes a shared hold (a read lock, a semaphore permit), whose
         * holder writes nothing; decided before the acquisition is invoked, so its lines say so.
         */
        default boolean nextShared() {
            return false;
        }

        /** Returns the hold, or empty if the wait ran out. */
        Optional<Holding> acquire(boolean shared) throws Exception;
    }

    private interface Holding {
        long token();

        boolean valid();

        /** False if the lock turned out to be lost. */
        boolean release() throws Exception;
    }

    /** How long a worker's acquire waits for distlock's lock: five leases. */
    static Duration waitFor(long leaseMs) {
        return Duration.ofMillis(leaseMs * 5);
    }

    private Locker distlockLocker(LockClient distlock, LockKind kind, int permits, long leaseMs) {
        Duration wait = waitFor(leaseMs);
        return switch (kind) {
            case LOCK -> shared -> held(distlock.getLock(LOCK_NAME), wait);
            case FAIR_LOCK -> shared -> held(distlock.getFairLock(LOCK_NAME), wait);
            case READ_WRITE_LOCK -> {
                DistributedReadWriteLock rw = distlock.getReadWriteLock(LOCK_NAME);
                yield new Locker() {
                    @Override
                    public boolean nextShared() {
                        return random.nextInt(10) < 7;
                    }

                    @Override
                    public Optional<Holding> acquire(boolean shared) throws InterruptedException {
                        return held(shared ? rw.readLock() : rw.writeLock(), wait);
                    }
                };
            }
            case SEMAPHORE -> {
                DistributedSemaphore semaphore = distlock.getSemaphore(LOCK_NAME, permits);
                yield new Locker() {
                    @Override
                    public boolean nextShared() {
                        return true;
                    }

                    @Override
                    public Optional<Holding> acquire(boolean shared) throws InterruptedException {
                        return semaphore.tryAcquire(wait).map(CheckWorker.this::permit);
                    }
                };
            }
        };
    }

    private Optional<Holding> held(DistributedLock lock, Duration wait) throws InterruptedException {
        Optional<Lease> acquired = lock.tryAcquire(wait);
        if (acquired.isEmpty()) {
            return Optional.empty();
        }
        Lease lease = acquired.get();
        lease.onLost(lost -> emit(Type.INFO, Operation.LOST, lease.fencingToken(), 0, String.valueOf(lost.getMessage())));
        return Optional.of(new Holding() {
            @Override
            public long token() {
                return lease.fencingToken();
            }

            @Override
            public boolean valid() {
                return lease.isValid();
            }

            @Override
            public boolean release() {
                try {
                    lock.unlock();
                    return true;
                } catch (LeaseLostException e) {
                    return false;
                }
            }
        });
    }

    private Holding permit(Lease lease) {
        lease.onLost(lost -> emit(Type.INFO, Operation.LOST, lease.fencingToken(), 0, String.valueOf(lost.getMessage())));
        return new Holding() {
            @Override
            public long token() {
                return lease.fencingToken();
            }

            @Override
            public boolean valid() {
                return lease.isValid();
            }

            @Override
            public boolean release() {
                boolean held = lease.isValid();
                lease.close(); // a lost permit closes quietly
                return held;
            }
        };
    }


    private static Locker naiveLocker(DemoLock lock) {
        return shared -> {
            DemoLock.Held held = lock.acquire().held();
            return Optional.of(new Holding() {
                @Override
                public long token() {
                    return 0;
                }

                @Override
                public boolean valid() {
                    return true;
                }

                @Override
                public boolean release() throws Exception {
                    return held.release();
                }
            });
        };
    }

    private void loop(Locker locker, RedisCommands<String, String> store, FencedRedis fenced, long leaseMs) throws InterruptedException {
        while (true) {
            boolean shared = locker.nextShared();
            String mode = shared ? Checker.SHARED : "";
            queuedSeen = false;
            emit(Type.INVOKE, Operation.ACQUIRE, 0, 0, mode);
            acquiring = true;
            Optional<Holding> acquired;
            try {
                acquired = locker.acquire(shared);
            } catch (InterruptedException e) {
                throw e;
            } catch (Exception e) {
                emit(Type.INFO, Operation.ACQUIRE, 0, 0, describe(e));
                Thread.sleep(leaseMs / 10);
                continue;
            } finally {
                acquiring = false;
            }
            if (acquired.isEmpty()) {
                emit(Type.FAIL, Operation.ACQUIRE, 0, 0, "wait ran out");
                continue;
            }
            Holding held = acquired.get();
            long token = held.token();
            emit(Type.OK, Operation.ACQUIRE, token, 0, mode);
            try {
                if (shared) {
                    readAndWork(store, token, leaseMs);
                } else {
                    readModifyWrite(held, store, fenced, token, leaseMs);
                }
            } catch (RuntimeException e) {
                emit(Type.INFO, Operation.STORE, token, 0, describe(e));
            } finally {
                emit(Type.INVOKE, Operation.RELEASE, token, 0, "");
                try {
                    emit(held.release() ? Type.OK : Type.FAIL, Operation.RELEASE, token, 0, "");
                } catch (Exception e) {
                    emit(Type.INFO, Operation.RELEASE, token, 0, describe(e));
                }
            }
            Thread.sleep(random.nextInt(3)); // let others in now and then
        }
    }

    /**
     * Records {@link Operation#QUEUED} once per acquire when the acquiring thread waits for its turn in the client (the
     * engine's ReleaseSignal.awaitChange, entered only after the join was answered "not yet"): from then on the waiter
     * is surely in the server's queue, and the order invariant judges later arrivals against it. Sampled every 2 ms
     * while an acquire runs; the event is stamped after the sample, when the thread was surely waiting already.
     */
    private void watchQueueing(Thread acquirer) {
        Thread watcher = new Thread(() -> {
            try {
                while (true) {
                    Thread.sleep(2);
                    if (acquiring && !queuedSeen && waitsForItsTurn(acquirer)) {
                        long now = System.nanoTime();
                        queuedSeen = true;
                        LISTENER_LINES.add(new Event(now, process, Type.INFO, Operation.QUEUED, 0, 0, "").toLine());
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "queue-watch");
        watcher.setDaemon(true);
        watcher.start();
    }

    private static boolean waitsForItsTurn(Thread thread) {
        for (StackTraceElement frame : thread.getStackTrace()) {
            if (frame.getClassName().endsWith(".ReleaseSignal") && frame.getMethodName().equals("awaitChange")) {
                return true;
            }
        }
        return false;
    }

    /** A shared holder's cycle: read the register and work, as a reader or a permit holder would. */
    private void readAndWork(RedisCommands<String, String> store, long token, long leaseMs) throws InterruptedException {
        emit(Type.INVOKE, Operation.READ, token, 0, "");
        String current = store.get(REGISTER);
        long workMs = workMs(leaseMs);
        emit(Type.OK, Operation.READ, token, current == null ? 0 : Long.parseLong(current), CheckWorkers.WORK_NOTE + workMs);
        Thread.sleep(workMs);
    }

    /**
     * The work between read and write: mostly short, one in ten a slow critical section that still fits
     * well within the lease. The read's note tells the nemesis how long this holder will be busy.
     */
    private long workMs(long leaseMs) {
        return random.nextInt(10) == 0 ? leaseMs / 5 + random.nextInt((int) (leaseMs * 2 / 5)) : 1 + random.nextInt(5);
    }

    private void readModifyWrite(Holding held, RedisCommands<String, String> store, FencedRedis fenced, long token, long leaseMs) throws InterruptedException {
        emit(Type.INVOKE, Operation.READ, token, 0, "");
        String current = store.get(REGISTER);
        long value = current == null ? 0 : Long.parseLong(current);
        long workMs = workMs(leaseMs);
        emit(Type.OK, Operation.READ, token, value, CheckWorkers.WORK_NOTE + workMs);
        long started = System.nanoTime();
        Thread.sleep(workMs);
        long frozenMs = (System.nanoTime() - started) / 1_000_000 - workMs;
        if (frozenMs > leaseMs && token > 0) {
            // Frozen past its lease (a pause fault): write to the fenced store without asking the lease, as
            // a holder that cannot know it was paused would. Only the store's fencing can stop this write.
            emit(Type.INVOKE, Operation.FENCED_WRITE, token, value + 1, Checker.UNCHECKED + ": frozen for " + frozenMs + " ms");
            fencedWrite(fenced, token, value + 1);
            return;
        }
        if (!held.valid()) {
            emit(Type.INFO, Operation.ABORT, token, 0, "lease no longer valid before the write");
            return;
        }
        emit(Type.INVOKE, Operation.WRITE, token, value + 1, "");
        store.set(REGISTER, Long.toString(value + 1));
        emit(Type.OK, Operation.WRITE, token, value + 1, "");
        emit(Type.INVOKE, Operation.FENCED_WRITE, token, value + 1, "");
        if (!held.valid()) {
            // checked after the invoke is stamped: a loss notice stamped before it means this is false
            emit(Type.FAIL, Operation.FENCED_WRITE, token, value + 1, Checker.NOT_SENT + ": lease no longer valid");
            emit(Type.INFO, Operation.ABORT, token, 0, "lease no longer valid before the fenced write");
            return;
        }
        fencedWrite(fenced, token, value + 1);
    }

    private void fencedWrite(FencedRedis fenced, long token, long value) {
        boolean ok;
        try {
            fenced.rpush(FENCED_LOG, token, token + ":" + process + ":" + value);
            ok = true;
        } catch (StaleTokenException stale) {
            ok = false;
        }
        emit(ok ? Type.OK : Type.FAIL, Operation.FENCED_WRITE, token, value, ok ? "" : "rejected by the store: a higher token had written");
    }

    private void emit(Type type, Operation op, long token, long value, String note) {
        print(new Event(System.nanoTime(), process, type, op, token, value, note).toLine());
    }

    private static void print(String line) {
        OUTPUT.lock(); // a line and its flush together (a lock, not synchronized: this is blocking I/O)
        try {
            EVENTS.write(line);
            EVENTS.write('\n');
            EVENTS.flush();
        } catch (IOException | RuntimeException | Error e) {
            halt("could not record an event on stdout", e);
        } finally {
            OUTPUT.unlock();
        }
    }

    /** Ends this worker at once, saying why on stderr: the coordinator sees a process that ended, not one gone quiet. */
    private static void halt(String why, Throwable failure) {
        try {
            System.err.println("check worker halts: " + why + ": " + failure);
            failure.printStackTrace();
            System.err.flush();
        } finally {
            Runtime.getRuntime().halt(EXIT_UNRECORDED);
        }
    }

    private static String describe(Exception e) {
        String message = e.getMessage();
        return e.getClass().getSimpleName() + (message == null ? "" : ": " + message);
    }
}
