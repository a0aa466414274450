package io.distlock.servers;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The child's side of {@link ChildJvm}: the READY/GO handshake with the JVM that started this one, and
 * the guard that ends this JVM when that parent goes away (its end of our stdin closes).
 */
public final class ParentJvm {
    /** Exit code of a child whose parent closed its stdin. */
    public static final int EXIT_CODE_PARENT_GONE = 3;

    private static final BufferedReader STDIN = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    private static final AtomicBoolean GUARDED = new AtomicBoolean();

    private ParentJvm() {}

    /**
     * Prints {@code READY}, waits for the parent's {@code GO} line and returns the words after it (empty
     * string if none); from then on this JVM halts when its stdin closes. Returns empty if stdin closed
     * or another line came instead of GO: the parent gave up, and the caller should end.
     */
    public static Optional<String> readyThenAwaitGo() throws IOException {
        System.out.println(ChildJvm.READY);
        System.out.flush();
        String line = STDIN.readLine();
        if (line == null || !(line.equals(ChildJvm.GO) || line.startsWith(ChildJvm.GO + " "))) {
            return Optional.empty();
        }
        exitWhenInputCloses();
        return Optional.of(line.substring(ChildJvm.GO.length()).trim());
    }

    /**
     * Starts a daemon thread that flushes stdout and halts this JVM (exit code {@value #EXIT_CODE_PARENT_GONE})
     * when stdin closes, so that no child outlives its parent, even one killed with SIGKILL. Idempotent.
     */
    public static void exitWhenInputCloses() {
        if (!GUARDED.compareAndSet(false, true)) {
            return;
        }
        Thread guard = new Thread(() -> {
            try {
                while (STDIN.readLine() != null) {
                    // the parent sends nothing after GO; EOF means it is gone or done with us
                }
            } catch (IOException ignored) {
                // a broken pipe counts as EOF
            }
            System.out.flush();
            Runtime.getRuntime().halt(EXIT_CODE_PARENT_GONE);
        }, "parent-jvm-guard");
        guard.setDaemon(true);
        guard.start();
    }
}
