package io.distlock.cli.check;

import io.distlock.checker.Event;
import io.distlock.checker.Operation;
import io.distlock.servers.ChildJvm;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;

/**
 * The client processes of a check run: started, released, paused, killed and replaced; their event
 * lines are collected as they arrive, so the coordinator always knows who holds the lock.
 */
final class CheckWorkers implements AutoCloseable {
    /** Note of a read event: how long the holder will work before writing, e.g. {@code work=12}. */
    static final String WORK_NOTE = "work=";

    /** How long the end of a run waits for an exited worker's last lines. */
    private static final Duration OUTPUT_DRAIN = Duration.ofSeconds(10);

    private final LinkedBlockingQueue<Event> reads = new LinkedBlockingQueue<>();
    private volatile boolean watchingReads;
    private final IntFunction<List<String>> argsForSlot;
    /** Every event so far, in arrival order; guarded by itself (a copy-on-write list copied all of it per event). */
    private final List<Event> events = new ArrayList<>();
    private final AtomicLong acquisitions = new AtomicLong();
    private final List<String> output = new CopyOnWriteArrayList<>();
    /** The same lines, each with when this process read it ({@link System#nanoTime}, the clock of the events). */
    private final List<OutputLine> stampedOutput = new CopyOnWriteArrayList<>();
    private final Map<Integer, ChildJvm> byProcess = new ConcurrentHashMap<>();
    private final int[] slotProcess;
    private int nextProcess;

    /** @param argsForSlot worker arguments for a slot (lock and store addresses); the process id is added */
    CheckWorkers(int slots, IntFunction<List<String>> argsForSlot) {
        this.argsForSlot = argsForSlot;
        this.slotProcess = new int[slots];
    }

    /** Starts one process per slot and lets them all go at once. */
    void startAll() throws InterruptedException {
        List<ChildJvm> started = new ArrayList<>();
        for (int slot = 0; slot < slotProcess.length; slot++) {
            started.add(launch(slot));
        }
        awaitReady(started);
        started.forEach(ChildJvm::go);
    }

    /** Kills the process in a slot with SIGKILL and starts a replacement with a new id; returns the killed id. */
    int killAndReplace(int slot) throws InterruptedException {
        int victim = processIn(slot);
        process(victim).kill();
        ChildJvm replacement = launch(slot);
        awaitReady(List.of(replacement));
        replacement.go();
        return victim;
    }

    private ChildJvm process(int id) {
        ChildJvm process = byProcess.get(id);
        if (process == null) {
            throw new IllegalArgumentException("no worker process " + id + " (running: " + byProcess.keySet() + ")");
        }
        return process;
    }

    /** Freezes the process with this id (SIGSTOP). */
    void pause(int process) {
        process(process).pause();
    }

    /** Thaws the process with this id (SIGCONT). */
    void resume(int process) {
        process(process).resume();
    }

    /** Returns the process id running in a slot. */
    synchronized int processIn(int slot) {
        return slotProcess[slot];
    }

    int slots() {
        return slotProcess.length;
    }

    /** Returns the events so far (a copy). */
    List<Event> events() {
        synchronized (events) {
            return List.copyOf(events);
        }
    }

    /** Returns how many acquisitions were recorded so far. */
    long acquisitions() {
        return acquisitions.get();
    }

    /** Returns the lines that were not events (errors, stack traces). */
    List<String> output() {
        return output;
    }

    private ChildJvm launch(int slot) {
        int id;
        synchronized (this) {
            id = nextProcess++;
            slotProcess[slot] = id;
        }
        ChildJvm worker = ChildJvm.of(CheckWorker.class).name("check-worker-" + id).jvmFlags(ChildJvm.QUICK_START_FLAGS)
                .jvmFlags("-Xmx128m").args("--process", Integer.toString(id)).args(argsForSlot.apply(slot))
                .onLine(line -> collect(id, line)).start();
        byProcess.put(id, worker);
        return worker;
    }

    private void collect(int id, String line) {
        if (line.startsWith(Event.LINE_PREFIX)) {
            try {
                Event event = Event.parse(line);
                synchronized (events) {
                    events.add(event);
                }
                if (event.is(Event.Type.OK, Operation.ACQUIRE)) {
                    acquisitions.incrementAndGet();
                }
                track(event);
            } catch (RuntimeException e) {
                keep(id, line); // cut off mid-line by a kill
            }
        } else if (!line.isBlank()) {
            keep(id, line);
        }
    }

    private void keep(int id, String line) {
        String text = "process " + id + ": " + line;
        stampedOutput.add(new OutputLine(System.nanoTime(), text));
        output.add(text);
    }

    /** One line a worker printed that is not an event, and when it was read. */
    record OutputLine(long nanos, String text) {}

    /** Returns what the workers printed besides events, each line with when it was read. */
    List<OutputLine> stampedOutput() {
        return stampedOutput;
    }

    /**
     * Waits for a holder that has just read the register and will work at least {@code minWorkMs}
     * before writing, so that a fault hits it mid-hold; returns its slot, or -1 if none came in time.
     */
    int awaitHolderInWork(long minWorkMs, long timeoutMs) throws InterruptedException {
        reads.clear();
        watchingReads = true;
        try {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
            long left;
            while ((left = deadline - System.nanoTime()) > 0) {
                Event read = reads.poll(left, TimeUnit.NANOSECONDS);
                if (read == null) {
                    break;
                }
                long workMs = Long.parseLong(read.note().substring(WORK_NOTE.length()));
                boolean fresh = System.nanoTime() - read.nanos() < TimeUnit.MILLISECONDS.toNanos(Math.max(1, workMs / 2));
                int slot = slotOf(io.distlock.checker.History.clientOf(read.process())); // a thread's read names its client process
                if (fresh && workMs >= minWorkMs && slot >= 0) {
                    return slot;
                }
            }
            return -1;
        } finally {
            watchingReads = false;
        }
    }

    private synchronized int slotOf(int process) {
        for (int slot = 0; slot < slotProcess.length; slot++) {
            if (slotProcess[slot] == process) {
                return slot;
            }
        }
        return -1;
    }

    private void track(Event event) {
        if (watchingReads && event.is(Event.Type.OK, Operation.READ) && event.note().startsWith(WORK_NOTE)) {
            reads.offer(event);
        }
    }

    private void awaitReady(List<ChildJvm> workers) throws InterruptedException {
        try {
            ChildJvm.awaitAllReady(workers, Duration.ofSeconds(60));
        } catch (IllegalStateException e) {
            throw new IllegalStateException("check workers did not start within 60 s; their output:\n" + String.join("\n", output), e);
        }
    }

    /**
     * Stops every process (closing stdin makes a worker halt; SIGCONT first in case it is paused), then reads what
     * each one wrote to its end, so that {@link #events()} has every event a process managed to write: the checker
     * compares them with the fenced store's log.
     */
    @Override
    public void close() {
        ChildJvm.closeAll(new ArrayList<>(byProcess.values()));
        byProcess.forEach((id, process) -> {
            try {
                if (!process.awaitOutputEnd(OUTPUT_DRAIN)) {
                    keep(id, "(its output did not end within " + OUTPUT_DRAIN.toSeconds() + " s of the run's end; events may be missing)");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
    }
}
