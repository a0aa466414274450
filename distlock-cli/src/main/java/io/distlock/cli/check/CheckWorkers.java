package io.distlock.cli.check;

import io.distlock.checker.Event;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

/**
 * The client processes of a check run: started, released, paused, killed and replaced; their event
 * lines are collected as they arrive, so the coordinator always knows who holds the lock.
 */
final class CheckWorkers implements AutoCloseable {
    /** Note of a read event: how long the holder will work before writing, e.g. {@code work=12}. */
    static final String WORK_NOTE = "work=";

    private final LinkedBlockingQueue<Event> reads = new LinkedBlockingQueue<>();
    private volatile boolean watchingReads;
    private final IntFunction<List<String>> argsForSlot;
    private final List<Event> events = new CopyOnWriteArrayList<>();
    private final List<String> output = new CopyOnWriteArrayList<>();
    private final Map<Integer, Process> byProcess = new ConcurrentHashMap<>();
    private final int[] slotProcess;
    private int nextProcess;

    /** @param argsForSlot worker arguments for a slot (lock and store addresses); the process id is added */
    CheckWorkers(int slots, IntFunction<List<String>> argsForSlot) {
        this.argsForSlot = argsForSlot;
        this.slotProcess = new int[slots];
    }

    /** Starts one process per slot and lets them all go at once. */
    void startAll() throws IOException, InterruptedException {
        CountDownLatch ready = new CountDownLatch(slotProcess.length);
        List<Process> started = new ArrayList<>();
        for (int slot = 0; slot < slotProcess.length; slot++) {
            started.add(launch(slot, ready));
        }
        awaitReady(ready);
        for (Process process : started) {
            go(process);
        }
    }

    /** Kills the process in a slot with SIGKILL and starts a replacement with a new id; returns the killed id. */
    int killAndReplace(int slot) throws IOException, InterruptedException {
        int victim = slotProcess[slot];
        Process process = byProcess.get(victim);
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
        CountDownLatch ready = new CountDownLatch(1);
        Process replacement = launch(slot, ready);
        awaitReady(ready);
        go(replacement);
        return victim;
    }

    /** Sends a signal (STOP, CONT) to the process with this id. */
    void signal(int process, String signal) throws IOException, InterruptedException {
        long pid = byProcess.get(process).pid();
        new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).inheritIO().start().waitFor();
    }

    /** Returns the process id running in a slot. */
    synchronized int processIn(int slot) {
        return slotProcess[slot];
    }

    int slots() {
        return slotProcess.length;
    }

    List<Event> events() {
        return events;
    }

    /** Returns the lines that were not events (errors, stack traces). */
    List<String> output() {
        return output;
    }

    private synchronized Process launch(int slot, CountDownLatch ready) throws IOException {
        int id = nextProcess++;
        slotProcess[slot] = id;
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(java, "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto",
                "-Xmx128m", "-cp", System.getProperty("java.class.path"), CheckWorker.class.getName(), "--process", Integer.toString(id)));
        command.addAll(argsForSlot.apply(slot));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        byProcess.put(id, process);
        Thread reader = new Thread(() -> collect(id, process, ready), "check-worker-" + id);
        reader.setDaemon(true);
        reader.start();
        return process;
    }

    private void collect(int id, Process process, CountDownLatch ready) {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                if (line.startsWith(Event.LINE_PREFIX)) {
                    Event event = Event.parse(line);
                    events.add(event);
                    track(event);
                } else if (line.equals("READY")) {
                    ready.countDown();
                } else if (!line.isBlank()) {
                    output.add("process " + id + ": " + line);
                }
            }
        } catch (IOException | RuntimeException ignored) {
            // the process ended (or was killed mid-line)
        }
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
                int slot = slotOf(read.process());
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
        if (watchingReads && event.is(Event.Type.OK, "read") && event.note().startsWith(WORK_NOTE)) {
            reads.offer(event);
        }
    }

    private void awaitReady(CountDownLatch ready) throws InterruptedException {
        if (!ready.await(60, TimeUnit.SECONDS)) {
            throw new IllegalStateException("check workers did not start within 60 s; their output:\n" + String.join("\n", output));
        }
    }

    private static void go(Process process) throws IOException {
        OutputStream in = process.getOutputStream();
        in.write("GO\n".getBytes(StandardCharsets.US_ASCII));
        in.flush();
    }

    /** Stops every process (closing stdin makes a worker halt; SIGCONT first in case it is paused). */
    @Override
    public void close() {
        Map<Integer, Process> all = new HashMap<>(byProcess);
        for (Map.Entry<Integer, Process> entry : all.entrySet()) {
            Process process = entry.getValue();
            if (!process.isAlive()) {
                continue;
            }
            try {
                new ProcessBuilder("kill", "-CONT", Long.toString(process.pid())).start().waitFor(5, TimeUnit.SECONDS);
                process.getOutputStream().close();
            } catch (IOException ignored) {
                // already gone
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        for (Process process : all.values()) {
            try {
                if (!process.waitFor(5, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }
}
