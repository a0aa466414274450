package io.distlock.servers;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * A JVM started with this JVM's class path to run one main class: the worker processes of the demo
 * and the checker, benchmark workers, and lock holders that a test kills.
 *
 * <p>The handshake: the child prints {@code READY} once it is set up and waits for a {@code GO} line
 * on its stdin (see {@link ParentJvm}), so that many children can be started one by one and released
 * together. A child exits when its stdin closes, so none outlives this JVM, even after kill -9.
 */
public final class ChildJvm implements AutoCloseable {
    /*
     * One daemon thread per child reads its output (stdout and stderr merged): READY opens the ready
     * latch, every other line goes to the listener, or, without one, into the kept lines that
     * awaitLine() and output() read under `lock`. Writes to stdin (GO, close) come from the caller.
     *
     * The output goes to a file (unlinked as soon as both ends have it open) that the reader follows, not to a
     * pipe: when a child dies, the JDK's process reaper drains and closes the pipe of a Process, and a reader that
     * was behind at that moment gets "Stream closed" and loses what the child had written but it had not read yet
     * (up to the pipe's 64 KiB). The checker kills workers on purpose, and lost the last seconds of their events
     * that way (soaks 3404 and 3406). A file keeps every byte a child wrote, killed or not.
     */

    /** Flags for short-lived workers: a small heap, the serial collector, the C1 compiler only, CDS. */
    public static final List<String> QUICK_START_FLAGS = List.of("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto");
    /** The line a child prints when it is ready for GO. */
    public static final String READY = "READY";
    /** The line the parent writes to release a ready child (optionally followed by a space and words). */
    public static final String GO = "GO";

    private static final Duration CLOSE_GRACE = Duration.ofSeconds(5);

    private final String name;
    private final Process process;
    private final @Nullable Consumer<String> listener;
    private final CountDownLatch ready = new CountDownLatch(1);
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition lineArrived = lock.newCondition();
    private final List<String> kept = new ArrayList<>();
    private boolean outputEnded;

    /** How long the reader sleeps when it has read everything so far, at most (it starts at 1 ms and doubles). */
    private static final long MAX_IDLE_NANOS = TimeUnit.MILLISECONDS.toNanos(4);

    private final FileChannel output;

    private ChildJvm(String name, Process process, FileChannel output, @Nullable Consumer<String> listener) {
        this.name = name;
        this.process = process;
        this.output = output;
        this.listener = listener;
        Thread reader = new Thread(this::readOutput, "child-jvm-" + name + "-" + process.pid());
        reader.setDaemon(true);
        reader.start();
    }

    /** Returns a builder for a child that runs {@code mainClass}. */
    public static Builder of(Class<?> mainClass) {
        return new Builder(mainClass);
    }

    /** Collects what a child JVM runs with. */
    public static final class Builder {
        private final Class<?> mainClass;
        private final List<String> jvmFlags = new ArrayList<>();
        private final List<String> args = new ArrayList<>();
        private @Nullable Consumer<String> listener;
        private String name;

        private Builder(Class<?> mainClass) {
            this.mainClass = mainClass;
            this.name = mainClass.getSimpleName();
        }

        /** Adds JVM flags, e.g. {@link #QUICK_START_FLAGS} or {@code -Xmx128m}. */
        public Builder jvmFlags(Collection<String> flags) {
            jvmFlags.addAll(flags);
            return this;
        }

        /** Adds JVM flags. */
        public Builder jvmFlags(String... flags) {
            return jvmFlags(List.of(flags));
        }

        /** Adds arguments of the main method. */
        public Builder args(Collection<String> arguments) {
            args.addAll(arguments);
            return this;
        }

        /** Adds arguments of the main method. */
        public Builder args(String... arguments) {
            return args(List.of(arguments));
        }

        /** Names the child in thread names and error messages (default: the main class's simple name). */
        public Builder name(String childName) {
            this.name = childName;
            return this;
        }

        /**
         * Sends every output line but {@code READY} to {@code onLine}, on the child's reader thread, instead
         * of keeping it for {@link #awaitLine} and {@link #output()}.
         */
        public Builder onLine(Consumer<String> onLine) {
            this.listener = onLine;
            return this;
        }

        /**
         * Starts the child.
         *
         * @throws UncheckedIOException if the java binary cannot be started
         */
        public ChildJvm start() {
            List<String> command = new ArrayList<>();
            command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            command.addAll(jvmFlags);
            command.addAll(List.of("-cp", System.getProperty("java.class.path"), mainClass.getName()));
            command.addAll(args);
            Path file = null;
            FileChannel output = null;
            try {
                file = Files.createTempFile("distlock-child-", ".out");
                output = FileChannel.open(file, StandardOpenOption.READ);
                Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(file.toFile()).start();
                deleteQuietly(file); // both ends have it open; nothing is left behind, whatever happens to either JVM
                return new ChildJvm(name, process, output, listener);
            } catch (IOException e) {
                closeQuietly(output);
                if (file != null) {
                    deleteQuietly(file);
                }
                throw new UncheckedIOException("cannot start a JVM for " + mainClass.getName(), e);
            }
        }
    }

    private void readOutput() {
        try {
            ByteBuffer chunk = ByteBuffer.allocate(64 * 1024);
            ByteArrayOutputStream line = new ByteArrayOutputStream();
            long idleNanos = 0;
            boolean exited = false;
            while (true) {
                chunk.clear();
                int n = output.read(chunk);
                if (n > 0) {
                    idleNanos = 0;
                    byte[] bytes = chunk.array();
                    for (int i = 0; i < n; i++) {
                        if (bytes[i] == '\n') {
                            take(line);
                        } else {
                            line.write(bytes[i]);
                        }
                    }
                } else if (exited) {
                    break; // it had exited before this read, so this read saw all it ever wrote
                } else if (!process.isAlive()) {
                    exited = true; // one more read: what it wrote just before it exited
                } else {
                    idleNanos = idleNanos == 0 ? TimeUnit.MILLISECONDS.toNanos(1) : Math.min(MAX_IDLE_NANOS, idleNanos * 2);
                    TimeUnit.NANOSECONDS.sleep(idleNanos);
                }
            }
            if (line.size() > 0) {
                take(line); // cut off mid-line by a kill
            }
        } catch (IOException | RuntimeException e) {
            keep("(reading the output of " + name + " failed: " + e + ")");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            closeQuietly(output);
            lock.lock();
            try {
                outputEnded = true;
                lineArrived.signalAll();
            } finally {
                lock.unlock();
            }
        }
    }

    /** Hands on one line (without its newline) and empties the buffer. */
    private void take(ByteArrayOutputStream bytes) {
        String line = bytes.toString(StandardCharsets.UTF_8);
        bytes.reset();
        if (line.endsWith("\r")) {
            line = line.substring(0, line.length() - 1);
        }
        if (line.equals(READY)) {
            ready.countDown();
        } else if (listener != null) {
            try {
                listener.accept(line);
            } catch (RuntimeException e) {
                // keep reading: a reader that stopped would leave the child's later lines unseen, and this one
                keep("(a line the listener failed on: " + e + ") " + line);
            }
        } else {
            keep(line);
        }
    }

    private static void closeQuietly(@Nullable FileChannel channel) {
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException ignored) {
                // nothing to do
            }
        }
    }

    private static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            file.toFile().deleteOnExit(); // a file system that will not unlink an open file
        }
    }

    private void keep(String line) {
        lock.lock();
        try {
            kept.add(line);
            lineArrived.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Returns the operating system's process id. */
    public long pid() {
        return process.pid();
    }

    /** Returns whether the process is alive (a paused one is). */
    public boolean isAlive() {
        return process.isAlive();
    }

    /**
     * Waits until the child has printed {@code READY}.
     *
     * @throws IllegalStateException if it exits first or the timeout passes, with its output so far
     */
    public void awaitReady(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!ready.await(50, TimeUnit.MILLISECONDS)) {
            if (!process.isAlive() && outputEndedWithin(Duration.ofSeconds(5)) && ready.getCount() > 0) {
                throw new IllegalStateException(name + " exited with " + process.exitValue() + " before it was ready; its output:\n"
                        + String.join("\n", output()));
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException(name + " was not ready within " + timeout + "; its output:\n" + String.join("\n", output()));
            }
        }
    }

    /**
     * Waits until the child's output has ended (it exited, or closed its stdout) and every line of it was read and
     * handed on; returns false if that did not happen within {@code timeout}.
     */
    public boolean awaitOutputEnd(Duration timeout) throws InterruptedException {
        return outputEndedWithin(timeout);
    }

    private boolean outputEndedWithin(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        lock.lock();
        try {
            long left;
            while (!outputEnded && (left = deadline - System.nanoTime()) > 0) {
                lineArrived.awaitNanos(left);
            }
            return outputEnded;
        } finally {
            lock.unlock();
        }
    }

    /** Waits until every child is ready; see {@link #awaitReady(Duration)}. */
    public static void awaitAllReady(Collection<ChildJvm> children, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (ChildJvm child : children) {
            child.awaitReady(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
        }
    }

    /** Releases a ready child: writes {@code GO}. */
    public void go() {
        send(GO);
    }

    /** Releases a ready child with words for it: writes {@code GO words}. */
    public void go(String words) {
        send(GO + " " + words);
    }

    private void send(String line) {
        try {
            OutputStream in = process.getOutputStream();
            in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
            in.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write to " + name + " (it exited?)", e);
        }
    }

    /**
     * Waits for a kept output line that matches and returns it (lines seen before the call count).
     *
     * @throws IllegalStateException if the output ends or the timeout passes first, with the output so far
     */
    public String awaitLine(Predicate<String> matching, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        lock.lock();
        try {
            int seen = 0;
            while (true) {
                for (; seen < kept.size(); seen++) {
                    if (matching.test(kept.get(seen))) {
                        return kept.get(seen);
                    }
                }
                long left = deadline - System.nanoTime();
                if (outputEnded || left <= 0) {
                    throw new IllegalStateException(name + (outputEnded ? " ended" : " timed out after " + timeout)
                            + " without the expected line; its output:\n" + String.join("\n", kept));
                }
                lineArrived.awaitNanos(left);
            }
        } finally {
            lock.unlock();
        }
    }

    /** Returns the kept output lines so far (none when a line listener takes them). */
    public List<String> output() {
        lock.lock();
        try {
            return List.copyOf(kept);
        } finally {
            lock.unlock();
        }
    }

    /** Freezes the child (SIGSTOP). */
    public void pause() {
        Signal.STOP.sendTo(pid());
    }

    /** Thaws a frozen child (SIGCONT). */
    public void resume() {
        Signal.CONT.sendTo(pid());
    }

    /** Kills the child (SIGKILL) and waits until it is gone. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
    }

    /** Waits until the child exits; returns false if it still runs after {@code timeout}. */
    public boolean awaitExit(Duration timeout) throws InterruptedException {
        return process.waitFor(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    /** Returns the exit code of a child that has exited. */
    public int exitValue() {
        return process.exitValue();
    }

    /**
     * Ends the child: thaws it, closes its stdin (children exit on that), and kills it if it still runs
     * a few seconds later.
     */
    @Override
    public void close() {
        if (process.isAlive()) {
            resume();
            try {
                process.getOutputStream().close();
            } catch (IOException ignored) {
                // gone already
            }
            try {
                if (!process.waitFor(CLOSE_GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
                    process.destroyForcibly();
                }
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Closes every child, all stdin first, so that they wind down in parallel. */
    public static void closeAll(Collection<ChildJvm> children) {
        for (ChildJvm child : children) {
            if (child.isAlive()) {
                child.resume();
                try {
                    child.process.getOutputStream().close();
                } catch (IOException ignored) {
                    // gone already
                }
            }
        }
        children.forEach(ChildJvm::close);
    }

    @Override
    public String toString() {
        return "ChildJvm[" + name + ", pid " + pid() + (isAlive() ? "" : ", exited") + "]";
    }
}
