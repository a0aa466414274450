package io.distlock.servers;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A guarded server process: a pause returns only once the process is frozen. */
class GuardedProcessTest {
    @TempDir
    Path dir;

    /**
     * A process that spins on a CPU is paused: when the pause returns, none of its threads runs any more (kill(1)
     * returns once the signal is sent, not once it took effect); after the resume it runs again.
     */
    @Test
    void aPauseReturnsOnlyOnceEveryThreadOfTheServerIsStopped() throws Exception {
        Assumptions.assumeTrue(Files.isDirectory(Path.of("/proc/self/task")), "no /proc to read thread states from");
        GuardedProcess spinner = GuardedProcess.start(List.of("sh", "-c", "while :; do :; done"), dir.resolve("spinner.log"));
        Path tasks = Path.of("/proc", Long.toString(spinner.pid()), "task");
        try {
            Await.until(Duration.ofSeconds(10), "the spinner runs", () -> !GuardedProcess.runningThreads(tasks).isEmpty());
            for (int round = 0; round < 20; round++) {
                spinner.signalAll("STOP");
                assertThat(GuardedProcess.runningThreads(tasks)).as("threads not stopped, round %d", round).isEmpty();
                spinner.signalAll("CONT");
                Await.until(Duration.ofSeconds(10), "the spinner runs again", () -> !GuardedProcess.runningThreads(tasks).isEmpty());
            }
        } finally {
            spinner.kill();
        }
    }
}
