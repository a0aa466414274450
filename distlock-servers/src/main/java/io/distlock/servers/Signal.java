package io.distlock.servers;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * The POSIX signals the fault injection sends, delivered with {@code kill(1)}: freeze and thaw a process
 * (a GC pause, a stuck server), stop it gracefully, or kill it without a chance to clean up.
 */
public enum Signal {
    /** SIGSTOP: the process is frozen; its connections stay open but nothing is answered. */
    STOP,
    /** SIGCONT: a frozen process runs again. */
    CONT,
    /** SIGTERM: asks the process to shut down. */
    TERM,
    /** SIGKILL: the process ends at once, without shutdown hooks. */
    KILL;

    private static final long KILL_COMMAND_TIMEOUT_SECONDS = 10;

    /**
     * Sends this signal to process {@code pid} and waits until {@code kill} has delivered it. A process
     * that is already gone is not an error.
     *
     * @throws UncheckedIOException if {@code kill} cannot be run (no POSIX shell tools)
     */
    public void sendTo(long pid) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + name(), Long.toString(pid)).redirectErrorStream(true).start();
            kill.getInputStream().readAllBytes(); // "no such process" is fine
            kill.waitFor(KILL_COMMAND_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot send SIG" + name() + " to process " + pid, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Freezes this JVM for {@code duration}, like a long GC pause: a detached shell sends SIGCONT after
     * the duration, then this JVM sends itself SIGSTOP. Returns once the JVM runs again.
     *
     * @throws UncheckedIOException if the shell or {@code kill} cannot be run
     */
    public static void pauseCurrentProcess(Duration duration) throws InterruptedException {
        long pid = ProcessHandle.current().pid();
        String seconds = String.format(Locale.ROOT, "%.3f", duration.toMillis() / 1000.0);
        try {
            new ProcessBuilder("sh", "-c", "sleep " + seconds + "; kill -CONT " + pid).start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot schedule SIGCONT for this JVM", e);
        }
        STOP.sendTo(pid);
    }
}
