package io.distlock.servers;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A server process (redis-server, etcd, PostgreSQL, MariaDB) that cannot outlive this JVM, with its output
 * appended to a log file; for the servers of the {@code distlock-*-testing} modules.
 */
public final class GuardedProcess {
    /*
     * The guard is RedisServer's: the server runs in the background of a shell that prints its pid and
     * kills it when our end of the shell's stdin closes, which the OS does when this JVM exits for any
     * reason, kill -9 included. The server's stdin is /dev/null and its output goes to $SERVER_LOG.
     */
    private static final String GUARD = "exec 3<&0; \"$0\" \"$@\" </dev/null >>\"$SERVER_LOG\" 2>&1 3<&- & pid=$!; echo $pid; "
            + "(read -r _ <&3; kill -9 $pid 2>/dev/null) & watcher=$!; exec 3<&-; "
            + "wait $pid; code=$?; kill $watcher 2>/dev/null; exit $code";

    private final Process guard;
    private final long pid;
    private final Path log;

    private GuardedProcess(Process guard, long pid, Path log) {
        this.guard = guard;
        this.pid = pid;
        this.log = log;
    }

    /**
     * Starts {@code command} under the guard, its output appended to {@code log}.
     *
     * @throws IllegalStateException if the guard cannot start or exits at once
     */
    public static GuardedProcess start(List<String> command, Path log) {
        List<String> full = new ArrayList<>(List.of("sh", "-c", GUARD));
        full.addAll(command);
        try {
            ProcessBuilder builder = new ProcessBuilder(full).redirectErrorStream(true);
            builder.environment().put("SERVER_LOG", log.toString());
            Process guard = builder.start();
            String pidLine = new BufferedReader(new InputStreamReader(guard.getInputStream(), StandardCharsets.UTF_8)).readLine();
            if (pidLine == null) {
                throw new IllegalStateException(command.get(0) + ": its guard exited at once: " + readLog(log));
            }
            return new GuardedProcess(guard, Long.parseLong(pidLine.trim()), log);
        } catch (IOException e) {
            throw new IllegalStateException("cannot start " + command.get(0), e);
        }
    }

    /** Returns the server's pid. */
    public long pid() {
        return pid;
    }

    /** Returns whether the server is still running. */
    public boolean isAlive() {
        return guard.isAlive();
    }

    /** Sends {@code signal} (STOP, CONT, KILL, INT, TERM) to the server and every one of its children. */
    public void signalAll(String signal) {
        if (isAlive()) {
            run("sh", "-c", "kill -" + signal + " " + pid + " $(pgrep -P " + pid + ") 2>/dev/null; true");
            if (signal.equals("STOP")) {
                awaitStopped();
            }
        }
    }

    /**
     * Waits until every thread of the server is stopped: {@code kill} returns once the signal is sent, and a thread
     * that is running then stops only at its next return to user mode; a test that sends a request right after a pause
     * must not have it answered (an etcd contract test saw an acquire granted by a member it had just paused, 2026-11; that
     * this was the cause is not shown). Reads
     * {@code /proc}; where there is none, returns at once.
     *
     * @throws IllegalStateException if a thread still runs after 10 s
     */
    private void awaitStopped() {
        Path tasks = Path.of("/proc", Long.toString(pid), "task");
        if (!Files.isDirectory(Path.of("/proc", "self"))) {
            return;
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            List<String> running = runningThreads(tasks);
            if (running.isEmpty() || !isAlive()) {
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("server process " + pid + " did not stop within 10 s of SIGSTOP: threads " + running
                        + " still run");
            }
            sleepQuietly(5);
        }
    }

    /** The threads under {@code tasks} ({@code /proc/<pid>/task}) not in state T (stopped) or t (traced); none if gone. */
    static List<String> runningThreads(Path tasks) {
        List<String> running = new ArrayList<>();
        try (var threads = Files.list(tasks)) {
            for (Path task : (Iterable<Path>) threads::iterator) {
                String stat;
                try {
                    stat = Files.readString(task.resolve("stat"));
                } catch (IOException gone) {
                    continue; // the thread ended
                }
                String state = stat.substring(stat.lastIndexOf(')') + 1).trim();
                if (!state.startsWith("T") && !state.startsWith("t") && !state.startsWith("Z") && !state.startsWith("X")) {
                    running.add(task.getFileName() + " (" + state.charAt(0) + ")");
                }
            }
        } catch (IOException | UncheckedIOException gone) {
            return List.of(); // the process ended
        }
        return running;
    }

    /** Waits for the server to exit (30 s, then SIGKILL) and closes the guard. */
    public void awaitExit() {
        try {
            if (!guard.waitFor(30, TimeUnit.SECONDS)) {
                signalAll("CONT");
                signalAll("KILL");
                guard.waitFor(10, TimeUnit.SECONDS);
            }
            guard.getOutputStream().close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException ignored) {
            // the guard is gone already
        }
    }

    /** Kills the server (SIGCONT first, so a paused one dies too) and waits for it. */
    public void kill() {
        signalAll("CONT");
        signalAll("KILL");
        awaitExit();
    }

    /**
     * Waits until the log, past its first {@code logBefore} characters, contains {@code readyLine} and
     * {@code port} accepts connections.
     *
     * @throws IllegalStateException with the log if the server exits first or the timeout passes
     */
    public void awaitReady(int logBefore, String readyLine, int port, Duration timeout, String what) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() - deadline < 0) {
            if (!isAlive()) {
                throw new IllegalStateException(what + " exited on start (port " + port + " taken?): " + readLog(log));
            }
            String text = readLog(log);
            if (text.length() > logBefore && text.substring(logBefore).contains(readyLine) && accepts(port)) {
                return;
            }
            sleepQuietly(50);
        }
        kill();
        throw new IllegalStateException(what + " not ready within " + timeout + ": " + readLog(log));
    }

    /** Returns the length of the log so far (a start's own lines come after it). */
    public static int logLength(Path log) {
        return readLog(log).length();
    }

    /** Returns the log, or a note saying why there is none. */
    public static String readLog(Path log) {
        try {
            return Files.exists(log) ? Files.readString(log) : "";
        } catch (IOException e) {
            return "(log unreadable: " + e + ")";
        }
    }

    private static boolean accepts(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** Runs a short command and waits for it (30 s at most). */
    public static void run(String... command) {
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            process.getInputStream().readAllBytes();
            process.waitFor(30, TimeUnit.SECONDS);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + String.join(" ", command), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Returns whether this JVM runs as root (database servers then run as {@code nobody}, or are told to accept root). */
    public static boolean isRoot() {
        return "root".equals(System.getProperty("user.name"));
    }

    private static void sleepQuietly(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
